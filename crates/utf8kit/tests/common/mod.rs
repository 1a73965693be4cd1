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
