//! The relatives of UTF-8 that other systems still write.
//!
//! * CESU-8 ([`to_cesu8`], [`from_cesu8`]; Unicode TR 26): characters above U+FFFF are written as
//!   a UTF-16 surrogate pair, each half as a 3-byte sequence.
//! * Modified UTF-8 ([`to_mutf8`], [`from_mutf8`]; Java's `DataOutput.writeUTF`, JNI, class
//!   files): CESU-8, and U+0000 written as `C0 80` so the text never holds a
//!   zero byte.
//! * WTF-8 ([`wtf8_from_utf16`], [`is_valid_wtf8`]): a superset of UTF-8 that can hold ill-formed UTF-16
//!   (lone surrogates), as Rust's `OsString` does on Windows.
//!
//! ```
//! use utf8kit::variant;
//!
//! // U+1F600 in Modified UTF-8, as seed 002 shows it.
//! assert_eq!(&*variant::to_mutf8("😀"), b"\xED\xA0\xBD\xED\xB8\x80");
//! assert_eq!(&*variant::to_mutf8("\0"), b"\xC0\x80");
//! ```

mod cesu8;
mod error;
mod generalized;
mod mutf8;
mod wtf8;

pub use cesu8::encode_cesu8_char;
#[cfg(feature = "alloc")]
pub use cesu8::{from_cesu8, to_cesu8};
pub use error::{VariantError, VariantErrorKind};
pub use mutf8::encode_mutf8_char;
#[cfg(feature = "alloc")]
pub use mutf8::{from_mutf8, mutf8_to_utf16, to_mutf8, utf16_to_mutf8};
pub use wtf8::is_valid_wtf8;
#[cfg(feature = "alloc")]
pub use wtf8::{wtf8_from_utf16, wtf8_to_utf8_lossy, wtf8_to_utf16};
