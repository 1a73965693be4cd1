//! Run-time kernel selection: which kernels the CPU supports, the best of
//! them detected once and cached, and the one place that calls a kernel
//! after checking it.
//!
//! With the `std` feature, support is detected at run time with
//! `is_x86_feature_detected!` (which itself caches CPUID). Without it, only
//! what the compilation target guarantees (`-C target-feature`,
//! `-C target-cpu`) counts. On other architectures only the scalar kernel
//! exists.

use super::VALID;
use super::kernel::Kernel;
use super::scalar;
#[cfg(target_arch = "x86_64")]
use super::simd;
use crate::error::Utf8Error;
use core::sync::atomic::{AtomicU8, Ordering};

/// Whether the CPU has all the `target_feature`s named by the literals.
#[cfg(all(target_arch = "x86_64", feature = "std"))]
macro_rules! has {
    ($($feature:tt),+) => {
        $(std::is_x86_feature_detected!($feature))&&+
    };
}

/// Whether the compilation target has all the `target_feature`s named by
/// the literals (no run-time detection without `std`).
#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
macro_rules! has {
    ($($feature:tt),+) => {
        cfg!(all($(target_feature = $feature),+))
    };
}

/// Whether the CPU running this code supports `kernel`.
pub(crate) fn is_supported(kernel: Kernel) -> bool {
    match kernel {
        Kernel::Scalar => true,
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse42 => has!("sse4.2"),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => has!("avx2"),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => has!("avx512f", "avx512bw", "avx512vbmi"),
        #[cfg(not(target_arch = "x86_64"))]
        _ => false,
    }
}

/// The cached choice: 0 before detection, else `1 + ` the kernel's index in
/// [`Kernel::ALL`]. Every thread computes the same value, so `Relaxed` is
/// enough: a race only means detecting twice.
static DETECTED: AtomicU8 = AtomicU8::new(0);

/// The best kernel the CPU supports, detected on the first call.
#[inline]
pub(crate) fn detected() -> Kernel {
    match DETECTED.load(Ordering::Relaxed) {
        0 => detect(),
        n => Kernel::ALL[usize::from(n - 1) % Kernel::ALL.len()],
    }
}

#[cold]
#[inline(never)]
fn detect() -> Kernel {
    let best = Kernel::ALL
        .into_iter()
        .rev()
        .find(|&k| is_supported(k))
        .unwrap_or(Kernel::Scalar);
    let index = Kernel::ALL.iter().position(|&k| k == best).unwrap_or(0);
    DETECTED.store(index as u8 + 1, Ordering::Relaxed);
    best
}

/// Where the check of `bytes` by `kernel` first fails, or [`VALID`]: for
/// the SIMD kernels the start of the chunk in which it did, for the scalar
/// kernel the start of the first invalid sequence. Either way [`locate`]
/// turns it into the exact error, out of line, so the valid path returns
/// in registers.
///
/// [`locate`]: super::locate
///
/// # Safety
///
/// * `is_supported(kernel)`.
#[inline(always)]
pub(crate) unsafe fn first_failure(kernel: Kernel, bytes: &[u8]) -> usize {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller checked that the CPU supports the kernel.
        Kernel::Avx512 => unsafe { simd::avx512::first_failure(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Avx2 => unsafe { simd::avx2::first_failure(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Sse42 => unsafe { simd::sse42::first_failure(bytes) },
        _ => match scalar::valid_prefix_len(bytes) {
            n if n == bytes.len() => VALID,
            n => n,
        },
    }
}

/// Validates `bytes` with `kernel`, testing for errors after every block:
/// the flavour for input expected to hold errors (chunk iteration and
/// transcoding after a first error).
///
/// # Safety
///
/// * `is_supported(kernel)`.
#[inline(always)]
pub(crate) unsafe fn validate_fine(kernel: Kernel, bytes: &[u8]) -> Result<(), Utf8Error> {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller checked that the CPU supports the kernel.
        Kernel::Avx512 => unsafe { simd::avx512::validate_fine(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Avx2 => unsafe { simd::avx2::validate_fine(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Sse42 => unsafe { simd::sse42::validate_fine(bytes) },
        _ => scalar::validate(bytes),
    }
}

/// [`validate_fine`] that also copies the bytes it checks to `dst`: on
/// return `dst[..valid_up_to]` holds the valid prefix; other bytes up to
/// `bytes.len()` may have been written. `None` for the scalar kernel, which
/// does not copy (the caller copies).
///
/// # Safety
///
/// * `is_supported(kernel)`.
/// * `dst..dst + bytes.len()` is writable and does not overlap `bytes`.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) unsafe fn validate_copy(
    kernel: Kernel,
    bytes: &[u8],
    dst: *mut u8,
) -> Option<Result<(), Utf8Error>> {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller checked that the CPU supports the kernel and
        // made `dst` writable.
        Kernel::Avx512 => Some(unsafe { simd::avx512::validate_copy(bytes, dst) }),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Avx2 => Some(unsafe { simd::avx2::validate_copy(bytes, dst) }),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Sse42 => Some(unsafe { simd::sse42::validate_copy(bytes, dst) }),
        _ => None,
    }
}

/// Lossy decoding of `bytes` into `dst` by `kernel` (see
/// `lookup::lossy`): how far it got, or `None` for the scalar kernel.
///
/// # Safety
///
/// * `is_supported(kernel)`.
/// * `dst..dst + cap` is writable and does not overlap `bytes`.
#[cfg(feature = "alloc")]
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn lossy(
    kernel: Kernel,
    bytes: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Option<simd::lookup::Lossy> {
    match kernel {
        // SAFETY: the caller checked that the CPU supports the kernel and
        // made `dst` writable.
        Kernel::Avx512 => Some(unsafe { simd::avx512::lossy(bytes, dst, cap) }),
        // SAFETY: as above.
        Kernel::Avx2 => Some(unsafe { simd::avx2::lossy(bytes, dst, cap) }),
        // SAFETY: as above.
        Kernel::Sse42 => Some(unsafe { simd::sse42::lossy(bytes, dst, cap) }),
        _ => None,
    }
}

/// Whether `bytes` is valid UTF-8, by `kernel`.
///
/// # Safety
///
/// * `is_supported(kernel)`.
#[inline(always)]
pub(crate) unsafe fn is_valid(kernel: Kernel, bytes: &[u8]) -> bool {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller checked that the CPU supports the kernel.
        Kernel::Avx512 => unsafe { simd::avx512::is_valid(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Avx2 => unsafe { simd::avx2::is_valid(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Sse42 => unsafe { simd::sse42::is_valid(bytes) },
        _ => scalar::valid_prefix_len(bytes) == bytes.len(),
    }
}
