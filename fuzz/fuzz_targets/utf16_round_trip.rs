//! UTF-8 → UTF-16 → UTF-8 round trips and agrees with std in both
//! directions, for valid and invalid inputs, dispatched and under every
//! forced kernel.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8kit::{Kernel, transcode};

fuzz_target!(|data: &[u8]| {
    // UTF-8 → UTF-16 against std.
    match core::str::from_utf8(data) {
        Ok(s) => {
            let units = transcode::utf8_to_utf16(data).expect("valid input");
            assert_eq!(units, s.encode_utf16().collect::<Vec<_>>());
            assert_eq!(transcode::utf16_len_from_utf8(data), units.len());
            assert_eq!(transcode::utf16_to_utf8(&units).expect("round trip"), s);
        }
        Err(e) => {
            let err = transcode::utf8_to_utf16(data).unwrap_err();
            assert_eq!(
                (err.valid_up_to(), err.error_len()),
                (e.valid_up_to(), e.error_len())
            );
        }
    }
    // The same bytes read as UTF-16 units (possibly with lone surrogates).
    let units: Vec<u16> = data
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    match String::from_utf16(&units) {
        Ok(s) => assert_eq!(transcode::utf16_to_utf8(&units).expect("valid UTF-16"), s),
        Err(_) => assert!(transcode::utf16_to_utf8(&units).is_err()),
    }
    assert_eq!(
        transcode::utf16_to_utf8_lossy(&units),
        String::from_utf16_lossy(&units)
    );
    // The round trip under every kernel (the SIMD ones forced), with
    // exactly sized buffers.
    if let Ok(s) = core::str::from_utf8(data) {
        let want: Vec<u16> = s.encode_utf16().collect();
        for kernel in Kernel::available() {
            let mut units = vec![0u16; want.len()];
            let got = transcode::utf8_to_utf16_with(kernel, data, &mut units);
            assert_eq!(got, Some(Ok(want.len())), "{kernel}");
            assert_eq!(units, want, "{kernel}");
            let mut bytes = vec![0u8; s.len()];
            let got = transcode::utf16_to_utf8_with(kernel, &units, &mut bytes);
            assert_eq!(got, Some(Ok(s.len())), "{kernel}");
            assert_eq!(bytes, s.as_bytes(), "{kernel}");
        }
    }
});
