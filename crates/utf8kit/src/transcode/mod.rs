//! Transcoding between UTF-8 and UTF-16 (native, LE, BE), UTF-32 and
//! Latin-1; length functions; character counting; character boundaries and
//! truncation.
//!
//! # Shape
//!
//! Every public function is a thin, safe wrapper over a private kernel. The
//! scalar kernels (an ASCII fast path a word at a time, then one character
//! per step) define every result; the SIMD kernels (`simd`) do the bulk
//! behind the same wrappers, and the scalar kernels finish where they stop.
//!
//! A kernel reads the whole input, writes what fits into the output slice it
//! is given, and returns the exact length the complete output needs, or the
//! first error of the input. The wrappers build on that contract:
//!
//! * functions returning `Vec`/`String` size their buffer with the length
//!   functions below, which are exact for valid input, so the output is
//!   allocated once;
//! * `_into` functions write into a caller's slice and return the number of
//!   elements written, or a [`TranscodeError`]: `Invalid` for bad input
//!   (checked first, over the whole input), `BufferTooSmall { needed }` for
//!   valid input that does not fit. Nothing is ever written past the end of
//!   the slice. Elements after the returned length (or after `needed`) are
//!   unspecified: the SIMD kernels store whole registers and may leave
//!   scratch there, inside the slice.
//!
//! # Errors
//!
//! UTF-8 input is checked exactly like [`validate`](crate::validate()): the
//! same [`Utf8Error`], with std's `valid_up_to` and
//! `error_len`. UTF-16 errors ([`Utf16Error`]) and UTF-32 errors
//! ([`Utf32Error`]) give the index, in code units, of the first bad unit.
//! Lossy variants replace each bad unit with U+FFFD, exactly like
//! [`String::from_utf16_lossy`](alloc::string::String::from_utf16_lossy).
//! The lossy UTF-8 → UTF-16 functions ([`utf8_to_utf16_lossy`] and
//! friends) replace each maximal invalid subpart of the UTF-8 with one
//! U+FFFD, exactly like `String::from_utf8_lossy(..).encode_utf16()`: the
//! valid runs between errors are validated and converted by the SIMD
//! kernels in bulk.
//!
//! # Example
//!
//! ```
//! use utf8kit::transcode;
//!
//! let units = transcode::utf8_to_utf16("Grüße, 世界 😀".as_bytes()).unwrap();
//! assert_eq!(units, "Grüße, 世界 😀".encode_utf16().collect::<Vec<_>>());
//! assert_eq!(transcode::utf16_to_utf8(&units).unwrap(), "Grüße, 世界 😀");
//!
//! assert_eq!(transcode::count_chars("Grüße"), 5);
//! assert_eq!(transcode::truncate_str("Grüße", 3), "Gr");
//! ```

mod boundary;
mod count;
mod error;
mod latin1;
mod simd;
mod step;
mod utf16;
mod utf32;

pub use boundary::{
    CharsFrom, CharsRevFrom, ceil_char_boundary, chars_from, chars_rev_from, floor_char_boundary,
    next_char_start, prev_char_start, truncate_bytes, truncate_str,
};
pub use count::{
    count_chars, latin1_len_from_utf8, utf8_len_from_latin1, utf8_len_from_utf16,
    utf8_len_from_utf32, utf16_len_from_utf8,
};
#[doc(hidden)]
pub use count::{count_chars_with, utf8_len_from_utf32_with};
pub use error::{Latin1Error, TranscodeError, Utf16Error, Utf32Error};
#[doc(hidden)]
pub use latin1::{
    latin1_len_from_utf8_with, latin1_to_utf8_with, utf8_len_from_latin1_with, utf8_to_latin1_with,
    valid_utf8_to_latin1_with,
};
#[cfg(feature = "alloc")]
pub use latin1::{
    latin1_to_utf8, latin1_to_utf8_into_string, utf8_to_latin1, valid_utf8_to_latin1,
};
pub use latin1::{latin1_to_utf8_into, utf8_to_latin1_into, valid_utf8_to_latin1_into};
#[doc(hidden)]
pub use utf16::{
    utf8_len_from_utf16_with, utf8_to_utf16_lossy_with, utf8_to_utf16_with,
    utf8_to_utf16be_lossy_with, utf8_to_utf16be_with, utf8_to_utf16le_lossy_with,
    utf8_to_utf16le_with, utf16_len_from_utf8_with, utf16_to_utf8_lossy_with, utf16_to_utf8_with,
    utf16be_to_utf8_with, utf16le_to_utf8_with,
};
#[cfg(feature = "alloc")]
pub use utf16::{
    utf8_to_utf16, utf8_to_utf16_lossy, utf8_to_utf16be, utf8_to_utf16be_lossy, utf8_to_utf16le,
    utf8_to_utf16le_lossy, utf16_to_utf8, utf16_to_utf8_lossy, utf16be_to_utf8,
    utf16be_to_utf8_lossy, utf16le_to_utf8, utf16le_to_utf8_lossy, valid_utf8_to_utf16,
};
pub use utf16::{
    utf8_to_utf16_into, utf8_to_utf16_lossy_into, utf8_to_utf16be_into, utf8_to_utf16be_lossy_into,
    utf8_to_utf16le_into, utf8_to_utf16le_lossy_into, utf16_to_utf8_into, utf16_to_utf8_lossy_into,
    utf16be_to_utf8_into, utf16le_to_utf8_into, valid_utf8_to_utf16_into,
};
#[cfg(feature = "alloc")]
pub use utf32::{utf8_to_utf32, utf32_to_utf8, utf32_to_utf8_lossy, valid_utf8_to_utf32};
pub use utf32::{
    utf8_to_utf32_into, utf32_to_utf8_into, utf32_to_utf8_lossy_into, valid_utf8_to_utf32_into,
};
#[doc(hidden)]
pub use utf32::{
    utf8_to_utf32_with, utf32_to_utf8_lossy_with, utf32_to_utf8_with, valid_utf8_to_utf32_with,
};

#[cfg(feature = "alloc")]
use alloc::{string::String, vec, vec::Vec};

use crate::validate::validate_by;
use crate::{Kernel, Utf8Error};

/// Bytes validated and then converted per step by the validating UTF-8
/// transcoders: small enough that the conversion reads bytes the validator
/// just brought into L1, large enough that the validator runs at full
/// speed.
const CHUNK: usize = 16 << 10;

/// The length of the next chunk of `rest`: at most [`CHUNK`] bytes, ending
/// before a byte that is not a continuation byte, or after three that are,
/// or all of `rest`. Either way no sequence crossing the cut could take the
/// byte after it, so a valid text is not cut inside a character, and a
/// sequence cut short at the chunk's end is exactly the maximal subpart
/// the whole input has there.
#[inline]
fn chunk_len(rest: &[u8]) -> usize {
    let len = rest.len().min(CHUNK);
    if len == rest.len() {
        return len;
    }
    (len - 3..=len)
        .rev()
        .find(|&e| rest.get(e).is_some_and(|&b| (b as i8) >= -64))
        .unwrap_or(len)
}

/// The length of the next chunk of `rest` to convert ([`chunk_len`]), checked valid by
/// `kernel`: at most [`CHUNK`] bytes, ending before a lead byte so that no
/// character is cut (there is a lead among any 4 bytes of valid UTF-8), or
/// all of `rest`.
///
/// # Errors
///
/// The first error of `rest` (offsets into `rest`) when the chunk is not
/// valid. A chunk's error may depend on the bytes after it (a sequence
/// truncated there is `Incomplete`), so `rest` decides.
#[inline]
fn next_valid_chunk(kernel: Kernel, rest: &[u8]) -> Result<usize, Utf8Error> {
    let mut len = chunk_len(rest);
    if validate_by(kernel, rest.get(..len).unwrap_or_default()).is_err() {
        validate_by(kernel, rest)?;
        len = rest.len();
    }
    Ok(len)
}

/// Turns a kernel's result into an `_into` result for a buffer of `capacity`
/// elements.
#[inline]
fn fit<E>(result: Result<usize, E>, capacity: usize) -> Result<usize, TranscodeError<E>> {
    match result {
        Ok(needed) if needed <= capacity => Ok(needed),
        Ok(needed) => Err(TranscodeError::BufferTooSmall { needed }),
        Err(e) => Err(TranscodeError::Invalid(e)),
    }
}

/// Runs a kernel into a fresh `Vec` of `estimate` elements, growing it once
/// if the estimate was short (it is exact for valid input, so this only
/// happens when the length functions and the kernel disagree, which the
/// tests rule out; growing keeps even that case correct).
#[cfg(feature = "alloc")]
#[inline]
fn run_to_vec<T: Copy + Default, E>(
    estimate: usize,
    mut kernel: impl FnMut(&mut [T]) -> Result<usize, E>,
) -> Result<Vec<T>, E> {
    let mut out = vec![T::default(); estimate];
    let needed = kernel(&mut out)?;
    if needed > out.len() {
        debug_assert!(false, "length estimate {estimate} < {needed}");
        out.resize(needed, T::default());
        kernel(&mut out)?;
    }
    out.truncate(needed);
    Ok(out)
}

/// Makes a `String` from bytes a UTF-8-writing kernel produced.
///
/// # Safety
///
/// * `bytes` must be exactly the output of a kernel that writes only through
///   [`step::put_utf8`] (with checked scalar values), [`step::put_replacement`]
///   or as ASCII copies, i.e. a sequence of complete UTF-8 encodings of
///   scalar values.
#[cfg(feature = "alloc")]
#[inline]
unsafe fn string_from_kernel(bytes: Vec<u8>) -> String {
    debug_assert!(core::str::from_utf8(&bytes).is_ok());
    // SAFETY: the caller guarantees `bytes` is well-formed UTF-8 (see the
    // function's Safety section).
    unsafe { String::from_utf8_unchecked(bytes) }
}
