//! Feeding the streaming validator and decoders any split of the input gives
//! the one-shot result. The first bytes choose the chunk sizes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8kit::stream::{LossyStreamDecoder, StreamDecoder, StreamValidator};

fuzz_target!(|data: &[u8]| {
    let Some((&sizes_seed, input)) = data.split_first() else {
        return;
    };
    let chunks = split(input, sizes_seed);

    let one_shot = utf8kit::validate(input);

    let mut validator = StreamValidator::new();
    let mut streamed = Ok(());
    for chunk in &chunks {
        if let Err(e) = validator.feed(chunk) {
            streamed = Err(e);
            break;
        }
    }
    if streamed.is_ok() {
        streamed = validator.finish().map(|n| assert_eq!(n, input.len()));
    }
    assert_eq!(streamed, one_shot);

    let mut strict = StreamDecoder::new();
    let mut out = String::new();
    let mut strict_result = Ok(());
    for chunk in &chunks {
        if let Err(e) = strict.feed(chunk, &mut out) {
            strict_result = Err(e);
            break;
        }
    }
    if strict_result.is_ok() {
        strict_result = strict.finish(&mut out).map(|_| ());
    }
    assert_eq!(strict_result, one_shot);
    if one_shot.is_ok() {
        assert_eq!(out.as_bytes(), input);
    }

    let mut lossy = LossyStreamDecoder::new();
    let mut out = String::new();
    for chunk in &chunks {
        lossy.feed(chunk, &mut out);
    }
    lossy.finish(&mut out);
    assert_eq!(out, String::from_utf8_lossy(input));
});

/// Splits `input` into chunks of 0..=16 bytes chosen by a tiny PRNG.
fn split(input: &[u8], seed: u8) -> Vec<&[u8]> {
    let mut state = u32::from(seed) | 1;
    let mut chunks = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let n = (state % 17) as usize;
        let (head, tail) = rest.split_at(n.min(rest.len()));
        chunks.push(head);
        rest = tail;
    }
    chunks
}
