//! Checking one input.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::errors::{Finder, Located};
use crate::input::{self, Contents, Input};

/// How much of each input to look at for the binary test (as git and
/// ripgrep do: a NUL byte near the start means binary).
const BINARY_SNIFF: usize = 8 * 1024;

/// What `check` should do.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// Keep at most this many errors per input (`None`: all); all are counted.
    pub keep: Option<usize>,
    /// Skip inputs that look binary.
    pub skip_binary: bool,
    /// Only validity matters: stop at the first error.
    pub quiet: bool,
}

/// The result of checking one input.
#[derive(Debug)]
pub enum Outcome {
    /// The input was read to the end (or, with `quiet`, to its first error).
    Checked {
        /// Bytes read.
        bytes: u64,
        /// The errors kept, in order.
        errors: Vec<Located>,
        /// All errors by kind.
        counts: [u64; 6],
    },
    /// Skipped because it looks binary.
    SkippedBinary,
    /// Could not be read.
    Unreadable(String),
}

impl Outcome {
    /// True if the input was read and had errors.
    pub fn is_invalid(&self) -> bool {
        matches!(self, Outcome::Checked { counts, .. } if counts.iter().any(|&c| c > 0))
    }
}

/// Checks one input; `progress` counts the bytes done.
pub fn check(input: &Input, options: CheckOptions, progress: &AtomicU64) -> Outcome {
    match input::open(input) {
        Err(err) => Outcome::Unreadable(err.to_string()),
        Ok(Contents::Whole(whole)) => {
            let bytes = whole.bytes();
            let outcome = check_whole(bytes, options);
            progress.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            outcome
        }
        Ok(Contents::Stream(mut reader)) => match check_stream(&mut *reader, options, progress) {
            Ok(outcome) => outcome,
            Err(err) => Outcome::Unreadable(err.to_string()),
        },
    }
}

fn looks_binary(start: &[u8]) -> bool {
    start[..start.len().min(BINARY_SNIFF)].contains(&0)
}

fn check_whole(bytes: &[u8], options: CheckOptions) -> Outcome {
    if options.skip_binary && looks_binary(bytes) {
        return Outcome::SkippedBinary;
    }
    let len = bytes.len() as u64;
    // The common case, valid input, costs one pass of the fastest validator.
    if utf8kit::is_valid(bytes) {
        return Outcome::Checked {
            bytes: len,
            errors: Vec::new(),
            counts: [0; 6],
        };
    }
    let keep = if options.quiet { Some(1) } else { options.keep };
    let mut finder = Finder::new(keep);
    if options.quiet {
        // One error is enough to decide; don't scan the rest.
        let err = utf8kit::validate(bytes).err();
        let end = err.map_or(bytes.len(), |e| {
            e.valid_up_to() + e.error_len().unwrap_or(bytes.len() - e.valid_up_to())
        });
        finder.feed(&bytes[..end]);
    } else {
        finder.feed(bytes);
    }
    finder.finish();
    Outcome::Checked {
        bytes: len,
        counts: finder.counts,
        errors: finder.kept,
    }
}

fn check_stream(
    reader: &mut dyn std::io::Read,
    options: CheckOptions,
    progress: &AtomicU64,
) -> std::io::Result<Outcome> {
    let mut buf = vec![0; input::CHUNK];
    let mut finder = Finder::new(if options.quiet { Some(1) } else { options.keep });
    let mut total = 0u64;
    let mut first = true;
    loop {
        let n = input::fill(reader, &mut buf)?;
        if n == 0 {
            break;
        }
        let chunk = &buf[..n];
        if first && options.skip_binary && looks_binary(chunk) {
            return Ok(Outcome::SkippedBinary);
        }
        first = false;
        finder.feed(chunk);
        total += n as u64;
        progress.fetch_add(n as u64, Ordering::Relaxed);
        if options.quiet && finder.total() > 0 {
            break;
        }
    }
    finder.finish();
    Ok(Outcome::Checked {
        bytes: total,
        counts: finder.counts,
        errors: finder.kept,
    })
}
