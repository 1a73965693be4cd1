//! Helpers shared by the integration tests (each test file includes this
//! module with `mod common;`).

use std::path::PathBuf;

/// The lipsum corpus directory: `$UTF8KIT_CORPUS`, else the nearest
/// `shared/corpus/lipsum` beside the workspace or one of its ancestors.
/// `None` when there is none; tests that need it then check only what they
/// can without it.
pub fn corpus_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("UTF8KIT_CORPUS") {
        return Some(PathBuf::from(dir));
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("shared/corpus/lipsum"))
        .find(|dir| dir.is_dir())
}

/// An input that starts with `ascii` bytes of ASCII, then has `next` (its
/// UTF-8, or the invalid byte `FF` for `None`), then text of every
/// character length up to `total` bytes (and at least 8 bytes after the
/// ASCII): the inputs of the `ascii_starts_*` tests, which put the end of
/// an ASCII start everywhere around the AVX-512 kernels' blocks.
#[allow(dead_code)] // not every test file that includes this module uses it
pub fn ascii_start_then(ascii: usize, next: Option<char>, total: usize) -> Vec<u8> {
    let mut bytes: Vec<u8> = b"The quick brown fox. "
        .iter()
        .copied()
        .cycle()
        .take(ascii)
        .collect();
    match next {
        Some(c) => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        None => bytes.push(0xFF),
    }
    for c in "Grüße, мир, 世界, 😀 and ASCII between. ".chars().cycle() {
        if bytes.len() + c.len_utf8() > total.max(ascii + 8) {
            break;
        }
        bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    bytes
}
