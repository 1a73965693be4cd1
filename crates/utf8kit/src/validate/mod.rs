//! UTF-8 validation with exact errors.
//!
//! [`validate`], [`from_utf8`] and [`from_utf8_mut`] accept exactly the inputs
//! [`core::str::from_utf8`] accepts and, on failure, report the same
//! `valid_up_to` and `error_len`, plus the class of the error
//! ([`Utf8ErrorKind`](crate::Utf8ErrorKind)).
//!
//! They run the fastest [`Kernel`] the CPU supports, detected once. Inputs
//! of at most 64 bytes take a short path ([`short`]): an inline ASCII test,
//! then the scalar kernel below 24 bytes, which is faster than setting up
//! vector registers for them.

mod dispatch;
mod kernel;
pub(crate) mod scalar;
mod short;
#[cfg(target_arch = "x86_64")]
pub(crate) mod simd;

pub use kernel::{Kernel, with_kernel};
pub use scalar::sequence_len;

use crate::error::Utf8Error;

/// Checks that `bytes` is valid UTF-8.
///
/// # Errors
///
/// Returns the first error, with the same `valid_up_to` and `error_len` as
/// [`core::str::from_utf8`] and its [`kind`](Utf8Error::kind).
///
/// # Example
///
/// ```
/// use utf8kit::Utf8ErrorKind;
///
/// assert!(utf8kit::validate("Hello, 世界".as_bytes()).is_ok());
///
/// // "Hello, " then an overlong encoding of '/'.
/// let err = utf8kit::validate(b"Hello, \xC0\xAF").unwrap_err();
/// assert_eq!(err.valid_up_to(), 7);
/// assert_eq!(err.error_len(), Some(1));
/// assert_eq!(err.kind(), Utf8ErrorKind::Overlong);
/// ```
#[inline]
pub fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    result(dispatch::detected(), bytes, first_failure(bytes))
}

/// What a `first_failure` returns when there is no error.
pub(crate) const VALID: usize = usize::MAX;

/// Where the check of `bytes` first fails, or [`VALID`]: the short path,
/// else the detected kernel (see [`dispatch::first_failure`]).
#[inline(always)]
fn first_failure(bytes: &[u8]) -> usize {
    if bytes.len() <= short::MAX {
        if short::is_ascii(bytes) {
            return VALID;
        }
        if bytes.len() < short::SCALAR_BELOW {
            // SAFETY: the scalar kernel is always supported.
            return unsafe { dispatch::first_failure(Kernel::Scalar, bytes) };
        }
    }
    // SAFETY: `detected` only returns kernels the CPU supports.
    unsafe { dispatch::first_failure(dispatch::detected(), bytes) }
}

/// Validates `bytes` with `kernel` (which the CPU supports): the public
/// [`validate`], short path included, when `kernel` is the detected one, so
/// that transcoders that take a kernel (to be tested with each) pay nothing
/// for it in normal use.
#[inline]
pub(crate) fn validate_by(kernel: Kernel, bytes: &[u8]) -> Result<(), Utf8Error> {
    if kernel == dispatch::detected() {
        validate(bytes)
    } else {
        // Callers only pass kernels the CPU supports; one it does not would
        // be a bug, so check anyway.
        let kernel = if kernel.is_available() {
            kernel
        } else {
            Kernel::Scalar
        };
        // SAFETY: `kernel` is supported, checked just above.
        result(kernel, bytes, unsafe {
            dispatch::first_failure(kernel, bytes)
        })
    }
}

/// The result of validating `bytes`, from where the check of `kernel`
/// first failed.
#[inline(always)]
fn result(kernel: Kernel, bytes: &[u8], failed_at: usize) -> Result<(), Utf8Error> {
    if failed_at == VALID {
        Ok(())
    } else {
        Err(locate_by(kernel, bytes, failed_at))
    }
}

/// [`locate`] after a check by `kernel`. A SIMD
/// kernel's check only says in which chunk (up to a KiB) it failed; the
/// scalar validator would walk that chunk a byte or a word at a time (under
/// 1 GB/s on text whose characters have mixed lengths, a microsecond or
/// two: as long as validating 30 KiB), so the kernel's fine flavour checks
/// it instead, testing every block and rescanning a few bytes. The scalar
/// kernel's `failed_at` is the error's own sequence, and a rescan shorter
/// than [`FINE_LOCATE_MIN`] is quick either way.
#[cold]
#[inline(never)]
fn locate_by(kernel: Kernel, bytes: &[u8], failed_at: usize) -> Utf8Error {
    let start = rescan_start(bytes, failed_at);
    let rest = bytes.get(start..).unwrap_or_default();
    if kernel != Kernel::Scalar && rest.len() >= FINE_LOCATE_MIN && dispatch::is_supported(kernel) {
        // SAFETY: the CPU supports `kernel`, checked just above.
        if let Err(e) = unsafe { dispatch::validate_fine(kernel, rest) } {
            // `bytes[..start]` is valid (see `locate`) and `start` a
            // character boundary, so the first error of `rest` is the
            // input's.
            return e.offset_by(start);
        }
        // Unreachable: the first check failed in `rest`; should the two
        // ever disagree, the scalar rescan below decides.
        debug_assert!(
            false,
            "check failed at {failed_at}, fine check found no error"
        );
    }
    locate(bytes, failed_at)
}

/// From how many bytes on [`locate_by`] rescans with the fine SIMD check.
const FINE_LOCATE_MIN: usize = 128;

/// The exact first error of `bytes`, given that the check first failed at
/// `failed_at`: inside the chunk starting there (SIMD kernels), or at the
/// sequence starting there (scalar kernel); every byte before passed.
///
/// Why the scalar rescan can start just before `failed_at`: every invalid
/// sequence is detected at one of its own bytes or at most three bytes after
/// its start (a lead cut short by the byte after its last continuation), or
/// by the end/ASCII check right after it. So `bytes[..failed_at]` is valid
/// UTF-8 except perhaps for one unfinished sequence at its end, and the
/// first error starts no earlier than that sequence's lead, which is the
/// last non-continuation byte among the three before `failed_at`. If those
/// three are all continuation bytes, they end a 4-byte character and
/// `failed_at` itself is a character boundary.
#[cold]
#[inline(never)]
pub(crate) fn locate(bytes: &[u8], failed_at: usize) -> Utf8Error {
    scalar::first_error_from(bytes, rescan_start(bytes, failed_at))
}

/// Where the scalar rescan of [`locate`] starts: the last non-continuation
/// byte among the three before `failed_at`, else `failed_at`.
#[inline(always)]
pub(crate) fn rescan_start(bytes: &[u8], failed_at: usize) -> usize {
    (failed_at.saturating_sub(3)..failed_at)
        .rev()
        .find(|&j| bytes.get(j).is_some_and(|&b| (b as i8) >= -64))
        .unwrap_or(failed_at)
}

/// Returns `true` if `bytes` is valid UTF-8.
///
/// Use it when the position of an error does not matter.
///
/// ```
/// assert!(utf8kit::is_valid("😀".as_bytes()));
/// assert!(!utf8kit::is_valid(b"\xF0\x9F\x98"));
/// ```
#[inline]
pub fn is_valid(bytes: &[u8]) -> bool {
    if bytes.len() <= short::MAX {
        if short::is_ascii(bytes) {
            return true;
        }
        if bytes.len() < short::SCALAR_BELOW {
            return scalar::valid_prefix_len(bytes) == bytes.len();
        }
    }
    // SAFETY: `detected` only returns kernels the CPU supports.
    unsafe { dispatch::is_valid(dispatch::detected(), bytes) }
}

/// A validation kernel the CPU is known to support, for code that
/// validates an input piece by piece: lossy decoding and chunk iteration
/// restart validation after every error.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Splitter {
    /// Invariant: `dispatch::is_supported(kernel)`.
    kernel: Kernel,
    /// Pieces shorter than this go to the scalar kernel (0 when forced).
    short: usize,
}

impl Splitter {
    /// The detected kernel, with the scalar kernel for short pieces, as
    /// [`validate`] does.
    #[inline]
    pub(crate) fn detected() -> Splitter {
        Splitter {
            kernel: dispatch::detected(),
            short: short::SCALAR_BELOW,
        }
    }

    /// A forced `kernel`, used on every piece however short; `None` if the
    /// CPU lacks it.
    #[inline]
    pub(crate) fn forced(kernel: Kernel) -> Option<Splitter> {
        dispatch::is_supported(kernel).then_some(Splitter { kernel, short: 0 })
    }

    /// The kernel.
    #[inline]
    pub(crate) fn kernel(self) -> Kernel {
        self.kernel
    }

    /// The longest valid prefix of `bytes` as `&str`, with the error that
    /// ends it (if any), by this kernel: one pass of the validator, no
    /// second check of the prefix. With `fine`, the SIMD check is tested
    /// after every 64-byte block rather than every KiB: for input expected
    /// to hold errors (after a first one), so that little work is wasted
    /// past an error and its exact position is found by rescanning a few
    /// bytes only.
    #[inline]
    pub(crate) fn split(self, bytes: &[u8], fine: bool) -> (&str, Option<Utf8Error>) {
        let result = if fine && bytes.len() >= self.short {
            // SAFETY: the struct's invariant: the CPU supports the kernel.
            unsafe { dispatch::validate_fine(self.kernel, bytes) }
        } else if self.short > 0 {
            // The detected kernel: `validate`, short path included.
            validate(bytes)
        } else {
            // SAFETY: as above.
            result(self.kernel, bytes, unsafe {
                dispatch::first_failure(self.kernel, bytes)
            })
        };
        let (prefix, error) = match result {
            Ok(()) => (bytes, None),
            Err(e) => (bytes.get(..e.valid_up_to()).unwrap_or_default(), Some(e)),
        };
        // SAFETY: the kernel checked that `bytes[..valid_up_to]` (all of
        // `bytes` when it returned Ok) is valid UTF-8.
        (unsafe { core::str::from_utf8_unchecked(prefix) }, error)
    }
}

impl Splitter {
    /// [`split`](Self::split) with `fine`, appending the valid prefix to
    /// `out`; returns its length and the error after it. The SIMD kernels
    /// copy each block as they check it (one pass over the input); the
    /// scalar kernel validates, then the prefix is copied.
    #[cfg(feature = "alloc")]
    #[inline]
    pub(crate) fn split_append(
        self,
        bytes: &[u8],
        out: &mut alloc::string::String,
    ) -> (usize, Option<Utf8Error>) {
        if bytes.len() >= self.short && self.kernel != Kernel::Scalar {
            // A no-op when the caller reserved, as lossy decoding does.
            out.reserve(bytes.len());
            // SAFETY: only `set_len` below touches the length, over bytes
            // the kernel checked.
            let vec = unsafe { out.as_mut_vec() };
            let dst = vec.spare_capacity_mut().as_mut_ptr().cast::<u8>();
            // SAFETY: the struct's invariant (the CPU supports the kernel);
            // `dst` is the spare capacity, at least `bytes.len()` bytes
            // after the `reserve`, and `out` cannot overlap `bytes` (it is
            // borrowed mutably while `bytes` is borrowed).
            if let Some(result) = unsafe { dispatch::validate_copy(self.kernel, bytes, dst) } {
                let n = result.map_or_else(|e| e.valid_up_to(), |()| bytes.len());
                // SAFETY: the kernel copied `bytes[..n]` to the first `n`
                // bytes of the spare capacity and checked that they are
                // valid UTF-8, so the string stays valid; `n <= bytes.len()`
                // fits in the capacity.
                unsafe { vec.set_len(vec.len() + n) };
                return (n, result.err());
            }
        }
        let (valid, error) = self.split(bytes, true);
        out.push_str(valid);
        (valid.len(), error)
    }

    /// Appends the lossy decoding of `bytes` (from a point where decoding
    /// starts afresh) to `out` with a SIMD kernel's lossy loop: returns
    /// the bytes consumed and the replacements made, or `None` for the
    /// scalar kernel and short inputs (the caller then goes piece by piece
    /// with [`split`](Self::split)). It stops early, at a boundary, when
    /// `out`'s spare capacity falls below the bytes left plus 3.
    #[cfg(feature = "alloc")]
    #[inline]
    pub(crate) fn lossy_append(
        self,
        bytes: &[u8],
        out: &mut alloc::string::String,
    ) -> Option<(usize, usize)> {
        #[cfg(target_arch = "x86_64")]
        if bytes.len() >= self.short && self.kernel != Kernel::Scalar {
            // SAFETY: only `set_len` below touches the length, over bytes
            // the kernel wrote as UTF-8.
            let vec = unsafe { out.as_mut_vec() };
            let spare = vec.spare_capacity_mut();
            let (dst, cap) = (spare.as_mut_ptr().cast::<u8>(), spare.len());
            // SAFETY: the struct's invariant (the CPU supports the kernel);
            // `dst` is the spare capacity, `cap` bytes, and `out` cannot
            // overlap `bytes` (it is borrowed mutably while `bytes` is
            // borrowed).
            let done = unsafe { dispatch::lossy(self.kernel, bytes, dst, cap) }?;
            // SAFETY: the kernel wrote `written <= cap` bytes: copies of
            // runs it checked to be valid UTF-8, each followed by the
            // encoding of U+FFFD, so the string stays valid.
            unsafe { vec.set_len(vec.len() + done.written) };
            return Some((done.read, done.replacements));
        }
        let _ = (bytes, out);
        None
    }
}

/// Converts a byte slice to a string slice, like [`core::str::from_utf8`].
///
/// # Errors
///
/// As [`validate`].
///
/// ```
/// assert_eq!(utf8kit::from_utf8(b"caf\xC3\xA9"), Ok("café"));
/// assert_eq!(utf8kit::from_utf8(b"caf\xC3").unwrap_err().error_len(), None);
/// ```
#[inline]
pub fn from_utf8(bytes: &[u8]) -> Result<&str, Utf8Error> {
    validate(bytes)?;
    // SAFETY: `validate` returned Ok, so `bytes` is valid UTF-8.
    Ok(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// Converts a mutable byte slice to a mutable string slice, like
/// [`core::str::from_utf8_mut`].
///
/// # Errors
///
/// As [`validate`].
///
/// ```
/// let mut bytes = *b"abc";
/// let s = utf8kit::from_utf8_mut(&mut bytes).unwrap();
/// s.make_ascii_uppercase();
/// assert_eq!(&bytes, b"ABC");
/// ```
#[inline]
pub fn from_utf8_mut(bytes: &mut [u8]) -> Result<&mut str, Utf8Error> {
    validate(bytes)?;
    // SAFETY: `validate` returned Ok, so `bytes` is valid UTF-8.
    Ok(unsafe { core::str::from_utf8_unchecked_mut(bytes) })
}
