//! Lossy decoding (dispatched, and every kernel forced) and chunking agree
//! with `String::from_utf8_lossy` and `<[u8]>::utf8_chunks`, and the DFA
//! decoder gives the same replacements.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let expected = String::from_utf8_lossy(data);
    assert_eq!(utf8kit::decode_lossy(data), expected);

    // Every kernel, appending after 0 to 31 bytes already in the output
    // (the kernels align their stores in the output).
    let before = data.first().map_or(0, |&b| usize::from(b) % 32);
    let replacements = data
        .utf8_chunks()
        .filter(|c| !c.invalid().is_empty())
        .count();
    for kernel in utf8kit::Kernel::available() {
        let mut out = "#".repeat(before);
        let n = utf8kit::decode_lossy_with(kernel, data, &mut out);
        assert_eq!(out[before..], expected, "{kernel}");
        assert_eq!(n, Some(replacements), "{kernel}");
    }

    let ours: Vec<(&str, &[u8])> = utf8kit::utf8_chunks(data)
        .map(|c| (c.valid(), c.invalid()))
        .collect();
    let std: Vec<(&str, &[u8])> = data
        .utf8_chunks()
        .map(|c| (c.valid(), c.invalid()))
        .collect();
    assert_eq!(ours, std);

    let mut via_dfa = String::new();
    for item in utf8kit::dfa::decode(data) {
        match item {
            utf8kit::dfa::Decoded::Char(c) => via_dfa.push(c),
            utf8kit::dfa::Decoded::Invalid(_) => via_dfa.push('\u{FFFD}'),
        }
    }
    assert_eq!(via_dfa, expected);
});
