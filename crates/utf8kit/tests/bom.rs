//! Byte-order marks: sniffing, stripping and adding.

use proptest::prelude::*;
use utf8kit::bom::{self, Bom};

#[test]
fn each_mark_is_recognised_from_its_bytes() {
    let table: [(Bom, &[u8], &str); 5] = [
        (Bom::Utf8, &[0xEF, 0xBB, 0xBF], "UTF-8"),
        (Bom::Utf16Le, &[0xFF, 0xFE], "UTF-16LE"),
        (Bom::Utf16Be, &[0xFE, 0xFF], "UTF-16BE"),
        (Bom::Utf32Le, &[0xFF, 0xFE, 0x00, 0x00], "UTF-32LE"),
        (Bom::Utf32Be, &[0x00, 0x00, 0xFE, 0xFF], "UTF-32BE"),
    ];
    for (bom, bytes, name) in table {
        assert_eq!(bom.bytes(), bytes);
        assert_eq!(bom.len(), bytes.len());
        assert_eq!(bom.name(), name);
        // U+FEFF encoded in each encoding is the mark.
        let encoded: Vec<u8> = match bom {
            Bom::Utf8 => "\u{FEFF}".as_bytes().to_vec(),
            Bom::Utf16Le => 0xFEFFu16.to_le_bytes().to_vec(),
            Bom::Utf16Be => 0xFEFFu16.to_be_bytes().to_vec(),
            Bom::Utf32Le => 0xFEFFu32.to_le_bytes().to_vec(),
            Bom::Utf32Be => 0xFEFFu32.to_be_bytes().to_vec(),
        };
        assert_eq!(encoded, bytes);
        let mut text = bytes.to_vec();
        text.extend_from_slice(b"x\x01");
        assert_eq!(bom::sniff(&text), Some(bom));
        assert_eq!(bom::strip(&text), (Some(bom), &b"x\x01"[..]));
    }
}

#[test]
fn the_ff_fe_00_00_ambiguity_reads_as_utf32le() {
    assert_eq!(bom::sniff(b"\xFF\xFE\x00\x00"), Some(Bom::Utf32Le));
    // A UTF-16LE text starting with U+0000 is indistinguishable.
    let utf16le_nul = bom::add(Bom::Utf16Le, &[0x00, 0x00, 0x41, 0x00]);
    assert_eq!(bom::sniff(&utf16le_nul), Some(Bom::Utf32Le));
    assert_eq!(bom::sniff(b"\xFF\xFE\x00\x01"), Some(Bom::Utf16Le));
}

#[test]
fn no_mark_and_partial_marks() {
    for bytes in [&b""[..], b"\xEF\xBB", b"\xFF", b"\x00\x00\xFE", b"hello"] {
        assert_eq!(bom::sniff(bytes), None, "{bytes:02X?}");
        assert_eq!(bom::strip(bytes), (None, bytes));
    }
    assert_eq!(bom::strip_utf8(b"\xFE\xFFx"), b"\xFE\xFFx");
}

#[test]
fn add_never_doubles_a_mark() {
    for bom in Bom::ALL {
        let once = bom::add(bom, b"abc");
        assert_eq!(bom::add(bom, &once), once);
        assert_eq!(bom::strip(&once), (Some(bom), &b"abc"[..]));
    }
}

proptest! {
    #[test]
    fn strip_undoes_add(bytes in proptest::collection::vec(any::<u8>(), 0..32), which in 0..5usize) {
        let bom = Bom::ALL[which];
        prop_assume!(!bytes.starts_with(bom.bytes()));
        // The one documented exception: UTF-16LE mark then U+0000.
        prop_assume!(!(bom == Bom::Utf16Le && bytes.starts_with(&[0, 0])));
        let marked = bom::add(bom, &bytes);
        prop_assert_eq!(bom::strip(&marked), (Some(bom), &bytes[..]));
        if bom == Bom::Utf8 {
            prop_assert_eq!(bom::strip_utf8(&marked), &bytes[..]);
        }
    }
}
