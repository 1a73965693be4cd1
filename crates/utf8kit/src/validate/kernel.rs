//! The public face of kernel selection: [`Kernel`] names each
//! implementation so that tests, benchmarks and tools can force one.

use super::dispatch;
use crate::error::Utf8Error;
use core::fmt;

/// One implementation of UTF-8 validation.
///
/// [`validate`](crate::validate()), [`from_utf8`](crate::from_utf8) and
/// [`is_valid`](crate::is_valid) use the best kernel the CPU supports
/// ([`Kernel::detected`]), chosen once. A kernel can also be forced, which is
/// what tests and benchmarks do; every kernel returns exactly the same
/// results.
///
/// | kernel | CPU features | registers |
/// |---|---|---|
/// | [`Scalar`](Self::Scalar) | none | 64-bit words |
/// | [`Sse42`](Self::Sse42) | SSE4.2 | 128-bit |
/// | [`Avx2`](Self::Avx2) | AVX2 | 256-bit |
/// | [`Avx512`](Self::Avx512) | AVX-512 F, BW and VBMI | 512-bit |
///
/// The SIMD kernels exist on x86-64 only. Detection happens at run time
/// with the `std` feature; without it, only the features the build targets
/// (`-C target-cpu`, `-C target-feature`) count.
///
/// # Example
///
/// ```
/// use utf8kit::Kernel;
///
/// let text = "Съешь же ещё этих мягких французских булок".as_bytes();
/// for kernel in Kernel::available() {
///     assert_eq!(kernel.validate(text), Some(Ok(())), "{kernel}");
/// }
/// assert!(Kernel::available().any(|k| k == Kernel::detected()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kernel {
    /// Word-at-a-time ASCII skip and a branchy decoder; runs everywhere.
    Scalar,
    /// The Keiser–Lemire lookup algorithm on 128-bit SSE registers.
    Sse42,
    /// The lookup algorithm on 256-bit AVX2 registers.
    Avx2,
    /// The lookup algorithm on 512-bit AVX-512 registers, with VBMI byte
    /// permutes and masked tail loads.
    Avx512,
}

impl Kernel {
    /// Every kernel, slowest first.
    ///
    /// ```
    /// assert_eq!(utf8kit::Kernel::ALL[0], utf8kit::Kernel::Scalar);
    /// ```
    pub const ALL: [Kernel; 4] = [Kernel::Scalar, Kernel::Sse42, Kernel::Avx2, Kernel::Avx512];

    /// The fastest kernel this CPU supports; the one the crate's functions
    /// use. Detected on the first call and cached.
    ///
    /// ```
    /// let kernel = utf8kit::Kernel::detected();
    /// assert!(kernel.is_available());
    /// println!("validating with {kernel}");
    /// ```
    #[inline]
    pub fn detected() -> Kernel {
        dispatch::detected()
    }

    /// The kernels this CPU supports, slowest first; always starts with
    /// [`Scalar`](Self::Scalar).
    ///
    /// ```
    /// let names: Vec<&str> = utf8kit::Kernel::available().map(|k| k.name()).collect();
    /// assert_eq!(names[0], "scalar");
    /// ```
    pub fn available() -> impl Iterator<Item = Kernel> {
        Kernel::ALL.into_iter().filter(|k| k.is_available())
    }

    /// Whether this CPU supports the kernel.
    ///
    /// ```
    /// assert!(utf8kit::Kernel::Scalar.is_available());
    /// ```
    #[inline]
    pub fn is_available(self) -> bool {
        dispatch::is_supported(self)
    }

    /// The kernel's short name: `scalar`, `sse4.2`, `avx2` or `avx512`.
    ///
    /// ```
    /// assert_eq!(utf8kit::Kernel::Avx2.name(), "avx2");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Sse42 => "sse4.2",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// The kernel with the given [`name`](Self::name), if any.
    ///
    /// ```
    /// use utf8kit::Kernel;
    /// assert_eq!(Kernel::from_name("avx512"), Some(Kernel::Avx512));
    /// assert_eq!(Kernel::from_name("neon"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Validates `bytes` with this kernel, exactly like
    /// [`validate`](crate::validate()); `None` if the CPU does not support the
    /// kernel.
    ///
    /// Unlike [`validate`](crate::validate()), this runs the kernel even on
    /// inputs so short that the scalar kernel would be faster.
    ///
    /// ```
    /// use utf8kit::Kernel;
    ///
    /// let err = Kernel::Scalar.validate(b"ab\xE2\x82").unwrap().unwrap_err();
    /// assert_eq!((err.valid_up_to(), err.error_len()), (2, None));
    /// for kernel in Kernel::available() {
    ///     assert_eq!(kernel.validate(b"ab\xE2\x82"), Some(Err(err)));
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// Inside the `Some`: the first error, as [`validate`](crate::validate()).
    #[inline]
    pub fn validate(self, bytes: &[u8]) -> Option<Result<(), Utf8Error>> {
        if !self.is_available() {
            return None;
        }
        // SAFETY: the CPU supports the kernel, checked just above.
        Some(super::result(self, bytes, unsafe {
            dispatch::first_failure(self, bytes)
        }))
    }

    /// Whether `bytes` is valid UTF-8, by this kernel; `None` if the CPU
    /// does not support it.
    ///
    /// ```
    /// for kernel in utf8kit::Kernel::available() {
    ///     assert_eq!(kernel.is_valid("😀".as_bytes()), Some(true));
    ///     assert_eq!(kernel.is_valid(b"\xF0\x9F\x98"), Some(false));
    /// }
    /// ```
    #[inline]
    pub fn is_valid(self, bytes: &[u8]) -> Option<bool> {
        if !self.is_available() {
            return None;
        }
        // SAFETY: the CPU supports the kernel, checked just above.
        Some(unsafe { dispatch::is_valid(self, bytes) })
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Validates `bytes` with a forced `kernel`: the same as
/// [`Kernel::validate`].
///
/// # Errors
///
/// Inside the `Some`: the first error, as [`validate`](crate::validate()).
///
/// ```
/// use utf8kit::{Kernel, with_kernel};
///
/// assert_eq!(with_kernel(Kernel::Scalar, b"caf\xC3\xA9"), Some(Ok(())));
/// ```
#[inline]
pub fn with_kernel(kernel: Kernel, bytes: &[u8]) -> Option<Result<(), Utf8Error>> {
    kernel.validate(bytes)
}
