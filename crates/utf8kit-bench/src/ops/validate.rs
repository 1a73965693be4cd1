//! UTF-8 validation: utf8kit against std, simdutf8, simdutf (C++) and encoding_rs, with
//! memcpy and memchr as memory-speed references.
//!
//! Every validator returns the length of the valid prefix (the input length when valid).
//! Bool-only flavours return the input length or [`INVALID`], and `--check` compares only
//! their verdict.

use std::hint::black_box;

use super::{Agreement, Contender, INVALID, Operation, Ratio, Role, Shape, Summary};
use crate::inputs::{Encoding, Kind, Size};

/// Names shared by contenders, ratios and summaries.
const UTF8KIT: &str = "utf8kit::validate";
const UTF8KIT_IS_VALID: &str = "utf8kit::is_valid";
const STD: &str = "core::str::from_utf8";
const SIMDUTF8_BASIC: &str = "simdutf8::basic::from_utf8";
const SIMDUTF: &str = "simdutf::validate_utf8";
const MEMCHR: &str = "memchr::memchr(0)";
/// Streaming validation in 64 KiB chunks.
const STREAM: &str = "utf8kit::stream::StreamValidator (64 KiB chunks)";
/// The forced scalar kernel's row (named by `kernel_contenders`).
const SCALAR: &str = "utf8kit scalar validate";

/// The validate operation.
pub fn operation() -> Operation {
    Operation::new("validate", Encoding::Utf8, STD)
        .contender(Contender::utf8(UTF8KIT, "utf8kit", Role::Ours, |b| {
            match utf8kit::validate(b) {
                Ok(()) => b.len(),
                Err(e) => e.valid_up_to(),
            }
        }))
        .contender(
            Contender::utf8(UTF8KIT_IS_VALID, "is_valid", Role::Ours, |b| {
                verdict(utf8kit::is_valid(b), b)
            })
            .agreement(Agreement::Verdict),
        )
        .contenders(kernel_contenders())
        .contender(Contender::utf8(STREAM, "stream 64K", Role::Ours, |b| {
            let mut v = utf8kit::stream::StreamValidator::new();
            for chunk in b.chunks(64 << 10) {
                if let Err(e) = v.feed(chunk) {
                    return e.valid_up_to();
                }
            }
            match v.finish() {
                Ok(n) => n,
                Err(e) => e.valid_up_to(),
            }
        }))
        .contender(Contender::utf8(STD, "std", Role::Peer, |b| match core::str::from_utf8(b) {
            Ok(_) => b.len(),
            Err(e) => e.valid_up_to(),
        }))
        .contender(
            Contender::utf8(SIMDUTF8_BASIC, "s8 basic", Role::Peer, |b| {
                verdict(simdutf8::basic::from_utf8(b).is_ok(), b)
            })
            .agreement(Agreement::Verdict),
        )
        .contender(Contender::utf8("simdutf8::compat::from_utf8", "s8 compat", Role::Peer, |b| {
            match simdutf8::compat::from_utf8(b) {
                Ok(_) => b.len(),
                Err(e) => e.valid_up_to(),
            }
        }))
        .contender(
            Contender::utf8(SIMDUTF, "simdutf", Role::Peer, |b| verdict(simdutf::validate_utf8(b), b))
                .agreement(Agreement::Verdict),
        )
        .contender(Contender::utf8(
            "simdutf::validate_utf8_with_errors",
            "simdutf err",
            Role::Peer,
            |b| {
                let r = simdutf::validate_utf8_with_errors(b);
                if r.error == simdutf::ErrorCode::Success { b.len() } else { r.count }
            },
        ))
        .contender(Contender::utf8(
            "encoding_rs::Encoding::utf8_valid_up_to",
            "enc_rs",
            Role::Peer,
            encoding_rs::Encoding::utf8_valid_up_to,
        ))
        .contender(memcpy())
        .contender(
            // A byte that is absent (the generated ASCII never contains NUL; --check
            // verifies), so memchr scans the whole input: the speed of a pure read pass.
            Contender::utf8(MEMCHR, "memchr", Role::Baseline, |b| {
                memchr::memchr(0, b).unwrap_or(b.len())
            })
            .only(|k| k.kind == Kind::Ascii),
        )
        .ratio(Ratio::best_peer("÷best", UTF8KIT))
        .ratio(Ratio::of("÷s8 basic", UTF8KIT, SIMDUTF8_BASIC))
        .ratio(Ratio::of("÷simdutf", UTF8KIT, SIMDUTF))
        .ratio(Ratio::of("÷memchr", UTF8KIT, MEMCHR))
        .ratio(Ratio::of("val÷is_valid", UTF8KIT, UTF8KIT_IS_VALID))
        .ratio(Ratio::of("scalar÷std", SCALAR, STD))
        .ratio(Ratio::of("stream÷val", STREAM, UTF8KIT))
        .summary(Summary::non_latin_geomean(
            "utf8kit ÷ simdutf8 basic, geomean over the non-Latin lipsum files",
            "÷s8 basic",
        ))
        .summary(Summary::non_latin_geomean(
            "utf8kit ÷ simdutf (C++), geomean over the non-Latin lipsum files",
            "÷simdutf",
        ))
        .summary(Summary {
            title: "utf8kit ÷ best peer: Latin, ASCII, random, sparse by size",
            ratio: "÷best",
            rows: |k| {
                k.input == "Latin" || matches!(k.kind, Kind::Ascii | Kind::Random | Kind::Sparse)
            },
            shape: Shape::Matrix,
        })
        .summary(Summary {
            title: "utf8kit ÷ memchr (absent byte), ASCII ≥ 64K",
            ratio: "÷memchr",
            rows: |k| k.kind == Kind::Ascii && k.size >= Size(64 << 10),
            shape: Shape::Matrix,
        })
        .summary(Summary::lipsum_matrix(
            "scalar kernel (forced) ÷ core::str::from_utf8, every lipsum file",
            "scalar÷std",
        ))
        .summary(Summary {
            title: "streaming in 64 KiB chunks ÷ one-shot utf8kit::validate, geomean over all inputs",
            ratio: "stream÷val",
            rows: |_| true,
            shape: Shape::GeomeanBySize,
        })
        .summary(Summary {
            title: "utf8kit::validate ÷ utf8kit::is_valid, geomean over all inputs",
            ratio: "val÷is_valid",
            rows: |_| true,
            shape: Shape::GeomeanBySize,
        })
        .note("utf8kit = utf8kit::validate (dispatched default, full error); is_valid = utf8kit::is_valid (bool); stream 64K = utf8kit::stream::StreamValidator fed 64 KiB chunks")
        .note("std = core::str::from_utf8; s8 basic / s8 compat = simdutf8::{basic, compat}::from_utf8")
        .note("simdutf = simdutf::validate_utf8 (bool), simdutf err = simdutf::validate_utf8_with_errors (C++ simdutf via the simdutf crate)")
        .note("enc_rs = encoding_rs::Encoding::utf8_valid_up_to (encoding_rs 0.8.44 hands inputs ≥ 64 B to simdutf8's compat AVX2/SSE4.2 kernels)")
        .note("memcpy = copy into a preallocated Vec; memchr = memchr::memchr for an absent byte (ASCII rows only): memory-speed references, not peers")
        .note("÷X = utf8kit ÷ X (> 1: utf8kit faster); ÷best divides by the fastest peer, named in the \"best peer\" column")
}

/// Per-kernel rows: every kernel the CPU has, forced.
///
/// One `validate` row per kernel the CPU supports, each forced (the dispatched default is
/// the `utf8kit validate` row). Kernels the CPU lacks are not listed by `available()`.
fn kernel_contenders() -> Vec<Contender> {
    utf8kit::Kernel::available()
        .map(|k| {
            Contender::utf8(
                format!("utf8kit {} validate", k.name()),
                k.name(),
                Role::Ours,
                move |b| match k.validate(b) {
                    Some(Ok(())) => b.len(),
                    Some(Err(e)) => e.valid_up_to(),
                    // `available()` listed it, so the CPU has it.
                    None => INVALID,
                },
            )
        })
        .collect()
}

/// A memory-bandwidth reference: copies the input into a buffer that only grows (on the
/// first, untimed, calibration call), so the timed calls are pure `memcpy`.
fn memcpy() -> Contender {
    let mut dst: Vec<u8> = Vec::new();
    Contender::utf8("memcpy", "memcpy", Role::Baseline, move |b| {
        if dst.len() < b.len() {
            dst.resize(b.len(), 0);
        }
        dst[..b.len()].copy_from_slice(b);
        black_box(&mut dst);
        b.len()
    })
}

/// A bool verdict in the operation's result convention.
fn verdict(valid: bool, b: &[u8]) -> usize {
    if valid { b.len() } else { INVALID }
}
