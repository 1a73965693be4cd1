//! # utf8kit
//!
//! Fast, exact UTF-8: validation that reports errors exactly like
//! [`core::str::from_utf8`] plus the class of each error, Hoehrmann's DFA
//! with a byte-by-byte trace, the Plan 9 codec, lossy and streaming decoding,
//! transcoding to and from UTF-16, UTF-32 and Latin-1, and the UTF-8 variants
//! (CESU-8, Modified UTF-8, WTF-8) with BOM handling.
//!
//! # Example: validate with exact errors
//!
//! ```
//! use utf8kit::Utf8ErrorKind;
//!
//! let err = utf8kit::validate(b"caf\xC3\xA9 \xED\xA0\x80").unwrap_err();
//! assert_eq!(err.valid_up_to(), 6);
//! assert_eq!(err.error_len(), Some(1));
//! assert_eq!(err.kind(), Utf8ErrorKind::Surrogate);
//! ```
//!
//! # Crate features
//!
//! * `alloc` — functions that return `String`, `Vec` or `Cow`.
//! * `std` (default, implies `alloc`) — `std::error::Error` integration and
//!   run-time CPU feature detection (without it the SIMD kernel is chosen
//!   from the compile-time target features).
//!
//! Without features the crate is `#![no_std]` and allocation-free.
#![no_std]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod bom;
pub mod dfa;
mod error;
pub mod lossy;
pub mod plan9;
pub mod stream;
pub mod transcode;
mod validate;
pub mod variant;

pub use error::{Utf8Error, Utf8ErrorKind};
#[cfg(feature = "alloc")]
#[doc(hidden)]
pub use lossy::decode_lossy_with;
#[doc(hidden)]
pub use lossy::utf8_chunks_with;
pub use lossy::{Utf8Chunk, Utf8Chunks, utf8_chunks};
#[cfg(feature = "alloc")]
pub use lossy::{decode_lossy, decode_lossy_into};
pub use validate::{Kernel, sequence_len, with_kernel};
pub use validate::{from_utf8, from_utf8_mut, is_valid, validate};
