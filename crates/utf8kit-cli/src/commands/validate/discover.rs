//! Turning the PATH arguments into the list of inputs to check: files as
//! given, directories walked recursively with ripgrep's ignore rules.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

use crate::input::Input;

/// How directories are walked.
#[derive(Debug, Default)]
pub struct WalkOptions {
    /// Also walk hidden files and directories (names starting with `.`).
    pub hidden: bool,
    /// Ignore `.gitignore`, `.ignore` and git's exclude files.
    pub no_ignore: bool,
    /// Follow symbolic links inside directories.
    pub follow: bool,
    /// ripgrep-style globs (`*.txt`, `!*.min.js`) filtering walked files.
    pub globs: Vec<String>,
}

/// What discovery found: inputs to check and problems to report.
#[derive(Debug, Default)]
pub struct Discovered {
    /// Inputs in the order given (directories in sorted walk order), each once.
    pub inputs: Vec<Input>,
    /// Paths that could not be walked, with the reason.
    pub problems: Vec<(String, String)>,
}

/// Expands `paths` (none means stdin).
pub fn discover(paths: &[PathBuf], options: &WalkOptions) -> Discovered {
    let mut found = Discovered::default();
    let mut seen_inputs = HashSet::new();
    let mut seen_roots = HashSet::new();
    if paths.is_empty() {
        found.inputs.push(Input::Stdin);
        return found;
    }
    let overrides = match build_overrides(&options.globs) {
        Ok(o) => o,
        Err(message) => {
            found.problems.push(("--glob".to_owned(), message));
            return found;
        }
    };
    for path in paths {
        let input = Input::from_arg(path);
        let is_dir = matches!(input, Input::File(ref p) if p.is_dir());
        if !is_dir {
            // Files named explicitly are always checked (globs and ignore
            // rules only filter what a walk finds), even if they don't exist:
            // reading them reports the problem.
            if seen_inputs.insert(input.clone()) {
                found.inputs.push(input);
            }
            continue;
        }
        // The same directory given twice (perhaps spelled differently) is
        // walked once.
        let root = path.canonicalize().unwrap_or_else(|_| path.clone());
        if !seen_roots.insert(root) {
            continue;
        }
        walk(path, options, &overrides, &mut seen_inputs, &mut found);
    }
    found
}

fn build_overrides(globs: &[String]) -> Result<ignore::overrides::Override, String> {
    let mut builder = OverrideBuilder::new(".");
    for glob in globs {
        builder
            .add(glob)
            .map_err(|e| format!("bad glob {glob:?}: {e}"))?;
    }
    builder.build().map_err(|e| e.to_string())
}

fn walk(
    dir: &Path,
    options: &WalkOptions,
    overrides: &ignore::overrides::Override,
    seen: &mut HashSet<Input>,
    found: &mut Discovered,
) {
    let walker = WalkBuilder::new(dir)
        .hidden(!options.hidden)
        .ignore(!options.no_ignore)
        .git_ignore(!options.no_ignore)
        .git_global(!options.no_ignore)
        .git_exclude(!options.no_ignore)
        .parents(!options.no_ignore)
        // Honour .gitignore files even outside a git checkout (an exported
        // tree keeps its ignore files).
        .require_git(false)
        .follow_links(options.follow)
        .overrides(overrides.clone())
        .sort_by_file_path(|a, b| a.cmp(b))
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                let is_file = entry.file_type().is_some_and(|t| t.is_file())
                    || (options.follow && entry.path().is_file());
                if is_file {
                    let input = Input::File(entry.into_path());
                    if seen.insert(input.clone()) {
                        found.inputs.push(input);
                    }
                }
            }
            // Unreadable directories, symlink loops and the like are reported
            // and the walk goes on.
            Err(err) => found
                .problems
                .push((dir.to_string_lossy().into_owned(), err.to_string())),
        }
    }
}
