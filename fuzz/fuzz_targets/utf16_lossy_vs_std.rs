//! Lossy decoding under every forced kernel agrees with std: UTF-8 → UTF-16
//! with replacement (native, LE and BE, exactly-sized buffers followed by a
//! guard that must survive, and one unit short), `decode_lossy_with` and
//! `utf8_chunks_with` against `String::from_utf8_lossy` and
//! `<[u8]>::utf8_chunks`, and the dispatched functions.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8kit::Kernel;
use utf8kit::transcode::{self, TranscodeError};

const GUARD: u8 = 0xA5;
const GUARD16: u16 = 0xA5A5;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let units: Vec<u16> = text.encode_utf16().collect();
    let n = units.len();
    let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
    let chunks: Vec<(&str, &[u8])> = data
        .utf8_chunks()
        .map(|c| (c.valid(), c.invalid()))
        .collect();
    let replacements = chunks.iter().filter(|c| !c.1.is_empty()).count();

    for kernel in Kernel::available() {
        let mut out = vec![GUARD16; n + 1];
        let got = transcode::utf8_to_utf16_lossy_with(kernel, data, &mut out[..n]);
        assert_eq!(got, Some(Ok(n)), "{kernel}");
        assert_eq!(&out[..n], &units[..], "{kernel}");
        assert_eq!(out[n], GUARD16, "{kernel} wrote past the output");
        if n > 0 {
            let mut out = vec![GUARD16; n];
            let got = transcode::utf8_to_utf16_lossy_with(kernel, data, &mut out[..n - 1]);
            assert_eq!(got, Some(Err(TranscodeError::BufferTooSmall { needed: n })));
            assert_eq!(&out[..n - 1], &units[..n - 1], "{kernel}");
            assert_eq!(out[n - 1], GUARD16, "{kernel} wrote past the output");
        }
        for (want, big) in [(&le, false), (&be, true)] {
            let mut out = vec![GUARD; want.len() + 1];
            let room = &mut out[..want.len()];
            let got = if big {
                transcode::utf8_to_utf16be_lossy_with(kernel, data, room)
            } else {
                transcode::utf8_to_utf16le_lossy_with(kernel, data, room)
            };
            assert_eq!(got, Some(Ok(want.len())), "{kernel}");
            assert_eq!(&out[..want.len()], &want[..], "{kernel}");
            assert_eq!(out[want.len()], GUARD, "{kernel} wrote past the output");
        }

        let mut s = String::from("#");
        assert_eq!(
            utf8kit::decode_lossy_with(kernel, data, &mut s),
            Some(replacements)
        );
        assert_eq!(&s[1..], &*text, "{kernel}");
        let ours: Vec<(&str, &[u8])> = utf8kit::utf8_chunks_with(kernel, data)
            .expect("available")
            .map(|c| (c.valid(), c.invalid()))
            .collect();
        assert_eq!(ours, chunks, "{kernel}");
    }

    assert_eq!(transcode::utf8_to_utf16_lossy(data), units);
    assert_eq!(transcode::utf8_to_utf16le_lossy(data), le);
    assert_eq!(transcode::utf8_to_utf16be_lossy(data), be);
    assert_eq!(utf8kit::decode_lossy(data), text);
});
