//! Lossy decoding (every maximal invalid subpart becomes U+FFFD): UTF-8 → UTF-8 and
//! UTF-8 → UTF-16, utf8kit against std and encoding_rs.
//!
//! Each operation runs twice: on [`Encoding::Utf8Damaged`] inputs (an invalid sequence
//! about every KiB, the case the targets are about) and on the valid originals. Every
//! contender returns the length of its output (bytes or units), so `--check` compares
//! outputs of the same length; the tests of `utf8kit` compare the outputs themselves.
//! Contenders that can write into a buffer they own reuse it (`_into`, encoding_rs'
//! `Decoder`); `decode_lossy` and std allocate, as their signatures require. The simdutf
//! crate has no lossy UTF-8 conversion, so it is absent here.

use utf8kit::Kernel;

use super::{Contender, Operation, Ratio, Role, Summary, room};
use crate::inputs::Encoding;

const DECODE_LOSSY: &str = "utf8kit::decode_lossy";
const DECODE_LOSSY_INTO: &str = "utf8kit::decode_lossy_into";
const STD_8: &str = "std String::from_utf8_lossy";
const ENC_RS_8: &str = "encoding_rs Decoder::decode_to_utf8";
const CHUNKS: &str = "utf8kit::utf8_chunks";
const STD_CHUNKS: &str = "std <[u8]>::utf8_chunks";

const TO_UTF16_INTO: &str = "utf8kit::transcode::utf8_to_utf16_lossy_into";
const TO_UTF16_VEC: &str = "utf8kit::transcode::utf8_to_utf16_lossy";
const STD_16: &str = "std String::from_utf8_lossy(..).encode_utf16()";
const ENC_RS_16: &str = "encoding_rs Decoder::decode_to_utf16";

/// The operation's name for inputs in `encoding`.
fn name(encoding: Encoding, damaged: &'static str, valid: &'static str) -> &'static str {
    if encoding == Encoding::Utf8Damaged {
        damaged
    } else {
        valid
    }
}

/// Lossy UTF-8 → UTF-8 (a `String`) on `encoding` inputs (`Utf8Damaged` or `Utf8`).
pub fn utf8_to_utf8(encoding: Encoding) -> Operation {
    let mut ours = String::new();
    let mut theirs = Vec::<u8>::new();
    let op = name(encoding, "lossy utf8→utf8", "lossy utf8→utf8 (valid)");
    Operation::new(op, encoding, STD_8)
        .contender(Contender::utf8(DECODE_LOSSY, "decode_lossy", Role::Ours, |b| {
            utf8kit::decode_lossy(b).len()
        }))
        .contender(Contender::utf8(DECODE_LOSSY_INTO, "_into", Role::Ours, move |b| {
            ours.clear();
            utf8kit::decode_lossy_into(b, &mut ours);
            ours.len()
        }))
        .contender(Contender::utf8(
            "utf8kit::stream::LossyStreamDecoder (64 KiB chunks)",
            "stream 64K",
            Role::Ours,
            {
                let mut out = String::new();
                move |b| {
                    out.clear();
                    let mut d = utf8kit::stream::LossyStreamDecoder::new();
                    for chunk in b.chunks(64 << 10) {
                        d.feed(chunk, &mut out);
                    }
                    d.finish(&mut out);
                    out.len()
                }
            },
        ))
        .contender(Contender::utf8(STD_8, "std", Role::Peer, |b| {
            String::from_utf8_lossy(b).len()
        }))
        .contender(Contender::utf8(CHUNKS, "chunks", Role::Ours, |b| {
            utf8kit::utf8_chunks(b)
                .map(|c| c.valid().len() + if c.invalid().is_empty() { 0 } else { 3 })
                .sum()
        }))
        .contender(Contender::utf8(STD_CHUNKS, "std chunks", Role::Peer, |b| {
            b.utf8_chunks()
                .map(|c| c.valid().len() + if c.invalid().is_empty() { 0 } else { 3 })
                .sum()
        }))
        .contender(Contender::utf8(ENC_RS_8, "enc_rs", Role::Peer, move |b| {
            let mut d = encoding_rs::UTF_8.new_decoder_without_bom_handling();
            let len = d.max_utf8_buffer_length(b.len()).unwrap_or(0);
            let out = room(&mut theirs, len);
            let (_, _, written, _) = d.decode_to_utf8(b, out, true);
            written
        }))
        .contender(Contender::utf8(
            "encoding_rs UTF_8.decode_without_bom_handling",
            "enc_rs alloc",
            Role::Peer,
            |b| encoding_rs::UTF_8.decode_without_bom_handling(b).0.len(),
        ))
        .ratio(Ratio::of("_into÷enc_rs", DECODE_LOSSY_INTO, ENC_RS_8))
        .ratio(Ratio::of("÷std", DECODE_LOSSY, STD_8))
        .ratio(Ratio::of("_into÷std", DECODE_LOSSY_INTO, STD_8))
        .ratio(Ratio::of("chunks÷std", CHUNKS, STD_CHUNKS))
        .summary(Summary::non_latin_geomean(
            "utf8kit::decode_lossy_into ÷ encoding_rs Decoder::decode_to_utf8, geomean over the non-Latin lipsum files",
            "_into÷enc_rs",
        ))
        .summary(Summary::non_latin_geomean(
            "utf8kit::decode_lossy ÷ String::from_utf8_lossy, geomean over the non-Latin lipsum files",
            "÷std",
        ))
        .summary(Summary::non_latin_geomean(
            "utf8kit::utf8_chunks ÷ <[u8]>::utf8_chunks, geomean over the non-Latin lipsum files",
            "chunks÷std",
        ))
        .note("inputs: every UTF-8 input with one character replaced every KiB by FF, E2 82 (cut) or ED A0 80 (surrogate), in turn; \"(valid)\": the originals")
        .note("decode_lossy, std and enc_rs alloc allocate their String; _into and stream 64K append to a reused String; enc_rs = a new Decoder per call, decode_to_utf8 into a reused byte buffer")
        .note("chunks = utf8kit::utf8_chunks, std chunks = <[u8]>::utf8_chunks: each walks the chunks and sums the output length (valid part + 3 bytes per invalid part), writing nothing")
        .note("(not encoding_rs' decode_to_string into a reused String: it zero-fills the String's whole spare capacity on every call)")
}

/// Lossy UTF-8 → UTF-16 (native units) on `encoding` inputs.
pub fn utf8_to_utf16(encoding: Encoding) -> Operation {
    let (mut a, mut b, mut c, mut d) = (
        Vec::<u16>::new(),
        Vec::<u16>::new(),
        Vec::<u16>::new(),
        Vec::<u16>::new(),
    );
    let op = name(encoding, "lossy utf8→utf16", "lossy utf8→utf16 (valid)");
    Operation::new(op, encoding, STD_16)
        .contender(Contender::utf8(TO_UTF16_INTO, "utf8kit", Role::Ours, move |s| {
            // At most one unit per byte.
            let out = room(&mut a, s.len());
            utf8kit::transcode::utf8_to_utf16_lossy_into(s, out).unwrap_or(usize::MAX)
        }))
        .contender(Contender::utf8(TO_UTF16_VEC, "Vec", Role::Ours, |s| {
            utf8kit::transcode::utf8_to_utf16_lossy(s).len()
        }))
        .contender(Contender::utf8(
            "utf8kit scalar utf8_to_utf16_lossy",
            "scalar",
            Role::Ours,
            move |s| {
                let out = room(&mut b, s.len());
                utf8kit::transcode::utf8_to_utf16_lossy_with(Kernel::Scalar, s, out)
                .and_then(Result::ok)
                .unwrap_or(usize::MAX)
            },
        ))
        .contender(Contender::utf8(STD_16, "std", Role::Peer, move |s| {
            c.clear();
            c.extend(String::from_utf8_lossy(s).encode_utf16());
            c.len()
        }))
        .contender(Contender::utf8(ENC_RS_16, "enc_rs", Role::Peer, move |s| {
            let mut dec = encoding_rs::UTF_8.new_decoder_without_bom_handling();
            let len = dec.max_utf16_buffer_length(s.len()).unwrap_or(0);
            let out = room(&mut d, len);
            let (_, _, written, _) = dec.decode_to_utf16(s, out, true);
            written
        }))
        .ratio(Ratio::of("÷enc_rs", TO_UTF16_INTO, ENC_RS_16))
        .ratio(Ratio::of("÷std", TO_UTF16_INTO, STD_16))
        .ratio(Ratio::of("Vec÷std", TO_UTF16_VEC, STD_16))
        .summary(Summary::non_latin_geomean(
            "utf8kit::transcode::utf8_to_utf16_lossy_into ÷ encoding_rs Decoder::decode_to_utf16, geomean over the non-Latin lipsum files",
            "÷enc_rs",
        ))
        .summary(Summary::non_latin_geomean(
            "utf8kit::transcode::utf8_to_utf16_lossy_into ÷ std from_utf8_lossy + encode_utf16, geomean over the non-Latin lipsum files",
            "÷std",
        ))
        .note("inputs: as for lossy utf8→utf8")
        .note("utf8kit = utf8_to_utf16_lossy_into into a reused buffer; Vec = utf8_to_utf16_lossy (allocates); scalar = the _into with the scalar kernel forced")
        .note("std = String::from_utf8_lossy then encode_utf16 into a reused Vec; enc_rs = a new encoding_rs Decoder per call, decode_to_utf16 into a reused buffer")
}
