//! End-to-end tests of the everyday jobs: whole trees, conversion, stats,
//! and the ways real inputs and outputs go wrong.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

fn utf8kit() -> Command {
    Command::cargo_bin("utf8kit").expect("binary built")
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(path, bytes).unwrap();
}

fn stdout_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A small project tree: valid files, a broken one, an ignored broken one,
/// a hidden broken one, a binary file.
fn tree() -> TempDir {
    let dir = TempDir::new().unwrap();
    let root = dir.path();
    write(&root.join("a.txt"), "ok 世界\n".as_bytes());
    write(&root.join("src/b.rs"), b"fn main() {}\n");
    write(&root.join("src/bad.txt"), b"line one\nbro\xC0\xAFken\n");
    write(&root.join(".gitignore"), b"ignored/\n");
    write(&root.join("ignored/worse.txt"), b"\xFF");
    write(&root.join(".hidden/h.txt"), b"\xFE");
    write(&root.join("data.bin"), b"\x00\x01\x02\xFF\xFE");
    dir
}

#[test]
fn walks_directories_honouring_gitignore_and_hidden_rules() {
    let dir = tree();
    let root = dir.path().to_str().unwrap();
    let out = utf8kit()
        .args(["validate", "--max-errors", "0", root])
        .assert()
        .code(1);
    let text = stdout_of(&out);
    assert!(
        text.contains("bad.txt:2:4: overlong encoding at byte 12: C0"),
        "{text}"
    );
    assert!(
        text.contains("data.bin:1:4: invalid byte at byte 3: FF"),
        "{text}"
    );
    assert!(
        !text.contains("worse.txt") && !text.contains("h.txt"),
        "{text}"
    );

    let out = utf8kit()
        .args(["validate", "--hidden", "--no-ignore", root])
        .assert()
        .code(1);
    let text = stdout_of(&out);
    assert!(
        text.contains("worse.txt") && text.contains("h.txt"),
        "{text}"
    );
}

#[test]
fn globs_and_skip_binary_filter_the_walk() {
    let dir = tree();
    let root = dir.path().to_str().unwrap();
    utf8kit()
        .args(["validate", "-g", "*.rs", root])
        .assert()
        .success()
        .stdout("");
    let out = utf8kit()
        .args([
            "validate",
            "--skip-binary",
            "--summary",
            "-g",
            "!*.txt",
            root,
        ])
        .assert()
        .success();
    let text = stdout_of(&out);
    assert!(text.contains("skipped (binary) 1"), "{text}");
    assert!(text.contains("files checked    1"), "{text}");
}

#[test]
fn summary_counts_files_bytes_and_errors_by_kind() {
    let dir = tree();
    let root = dir.path().to_str().unwrap();
    let out = utf8kit()
        .args(["validate", "--json", "--summary", root])
        .assert()
        .code(1);
    let records = json_lines(&stdout_of(&out));
    let summary = &records.last().unwrap()["summary"];
    assert_eq!(summary["files"], 4); // a.txt, data.bin, src/b.rs, src/bad.txt (.gitignore is hidden)
    assert_eq!(summary["invalid_files"], 2);
    assert_eq!(summary["errors_by_kind"]["overlong"], 1);
    assert_eq!(summary["errors_by_kind"]["unexpected_continuation"], 1);
    assert_eq!(summary["errors_by_kind"]["invalid_byte"], 2);
    let total_bytes: u64 = records[..records.len() - 1]
        .iter()
        .map(|r| r["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(summary["bytes"], total_bytes);
    // Reports come in sorted walk order whatever the threads did.
    let paths: Vec<String> = records[..records.len() - 1]
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
}

#[test]
fn quiet_prints_nothing_and_keeps_the_exit_status() {
    let dir = tree();
    let root = dir.path().to_str().unwrap();
    utf8kit()
        .args(["validate", "-q", root])
        .assert()
        .code(1)
        .stdout("")
        .stderr("");
    let good = dir.path().join("a.txt");
    utf8kit()
        .args(["validate", "-q"])
        .arg(&good)
        .assert()
        .success()
        .stdout("");
}

#[test]
fn a_directory_given_twice_is_checked_once() {
    let dir = tree();
    let root = dir.path().to_str().unwrap();
    let again = format!("{root}/./");
    let out = utf8kit()
        .args(["validate", "--json", root, &again])
        .assert()
        .code(1);
    assert_eq!(json_lines(&stdout_of(&out)).len(), 4);
}

#[cfg(unix)]
#[test]
fn symlink_loops_are_reported_not_followed_forever() {
    let dir = tree();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("src/loop")).unwrap();
    // Not following links: the loop is simply not entered.
    utf8kit()
        .args(["validate", "-q"])
        .arg(dir.path())
        .assert()
        .code(1);
    // Following links: the loop is detected, reported, and the rest checked.
    utf8kit()
        .args(["validate", "-L"])
        .arg(dir.path())
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2)
        .stdout(predicate::str::contains("bad.txt"))
        .stderr(predicate::str::contains("loop"));
}

#[cfg(target_os = "linux")]
#[test]
fn unreadable_file_among_a_tree_exits_2_and_the_rest_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tree();
    let secret = dir.path().join("src/secret.txt");
    write(&secret, b"x");
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    // As root, permissions do not stop reads; /proc/self/mem fails to read
    // (EIO at offset 0) for everyone.
    let unreadable = if fs::read(&secret).is_ok() {
        std::path::PathBuf::from("/proc/self/mem")
    } else {
        secret
    };
    let name = unreadable.file_name().unwrap().to_str().unwrap().to_owned();
    utf8kit()
        .arg("validate")
        .arg(&unreadable)
        .arg(dir.path())
        .assert()
        .code(2)
        .stdout(predicate::str::contains("bad.txt:2:4: overlong encoding"))
        .stderr(predicate::str::contains(name));
}

#[test]
fn bom_only_file_and_huge_line_are_fine() {
    let dir = TempDir::new().unwrap();
    let bom = dir.path().join("bom.txt");
    write(&bom, b"\xEF\xBB\xBF");
    let long = dir.path().join("long.txt");
    let mut line = "ж".repeat(3 << 20).into_bytes(); // one 6 MiB line
    line.push(0xC0);
    write(&long, &line);
    let out = utf8kit()
        .arg("validate")
        .arg(&bom)
        .arg(&long)
        .assert()
        .code(1);
    assert_eq!(
        stdout_of(&out),
        format!(
            "{}:1:{}: overlong encoding at byte {}: C0\n",
            long.display(),
            (3 << 20) + 1,
            6 << 20
        )
    );
}

#[test]
fn stdin_is_streamed_with_exact_positions_across_chunks() {
    // Larger than the read chunk, with an error straddling chunk borders.
    let mut input = Vec::new();
    while input.len() < 3 << 20 {
        input.extend_from_slice("строка 😀\n".as_bytes());
    }
    let at = (1 << 18) - 2; // cut the next emoji across the first chunk border
    let start = input[..at].iter().rposition(|&b| b == 0xF0).unwrap();
    input[start + 3] = b'!'; // F0 9F 98 '!'
    let expected_line = input[..start].iter().filter(|&&b| b == b'\n').count() + 1;
    let out = utf8kit()
        .args(["validate", "--json", "-"])
        .write_stdin(input.clone())
        .assert()
        .code(1);
    let rec = &json_lines(&stdout_of(&out))[0];
    assert_eq!(rec["bytes"], input.len());
    assert_eq!(rec["errors"][0]["offset"], start);
    assert_eq!(rec["errors"][0]["len"], 3);
    assert_eq!(rec["errors"][0]["line"], expected_line);
    assert_eq!(rec["errors"][0]["column"], 8);
}

// ---- convert ----

#[test]
fn converts_between_every_pair_of_unicode_encodings_and_back() {
    let text = "Hello, мир! 世界 😀 \u{0}end";
    let encodings = [
        "utf-8", "utf-16le", "utf-16be", "utf-32le", "utf-32be", "cesu-8", "mutf-8",
    ];
    for to in encodings {
        let out = utf8kit()
            .args(["convert", "--to", to])
            .write_stdin(text)
            .assert()
            .success();
        let encoded = out.get_output().stdout.clone();
        let back = utf8kit()
            .args(["convert", "--from", to, "--to", "utf-8"])
            .write_stdin(encoded.clone())
            .assert()
            .success();
        assert_eq!(stdout_of(&back), text, "via {to}");
        let want: Vec<u8> = match to {
            "utf-16le" => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
            "utf-16be" => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
            "utf-32le" => text
                .chars()
                .flat_map(|c| u32::from(c).to_le_bytes())
                .collect(),
            "utf-32be" => text
                .chars()
                .flat_map(|c| u32::from(c).to_be_bytes())
                .collect(),
            _ => continue,
        };
        assert_eq!(encoded, want, "{to}");
    }
}

#[test]
fn strict_conversion_reports_the_first_error_and_writes_nothing() {
    let dir = TempDir::new().unwrap();
    let target = dir.path().join("out.txt");
    write(&target, b"previous contents");
    utf8kit()
        .args(["convert", "--to", "utf-16le", "-o"])
        .arg(&target)
        .write_stdin(b"abc\xE0\x80xyz".as_slice())
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("overlong encoding")
                .and(predicate::str::contains("at byte 3")),
        );
    assert_eq!(fs::read(&target).unwrap(), b"previous contents");
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
}

#[test]
fn lossy_conversion_matches_std_and_counts_replacements() {
    let input: &[u8] = b"ok\xF0\x9F\x98 \xED\xA0\x80 \xC3\xA9";
    let out = utf8kit()
        .args(["convert", "--lossy", "--to", "utf-16be"])
        .write_stdin(input)
        .assert()
        .success()
        .stderr(predicate::str::contains("4 invalid sequence(s) replaced"));
    let want: Vec<u8> = String::from_utf8_lossy(input)
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    assert_eq!(out.get_output().stdout, want);
}

#[test]
fn utf16_errors_name_the_unpaired_surrogate() {
    let bytes: Vec<u8> = [0x41u16, 0xD800, 0x42]
        .iter()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    utf8kit()
        .args(["convert", "--from", "utf-16le", "--to", "utf-8"])
        .write_stdin(bytes)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("unpaired surrogate").and(predicate::str::contains("byte 2")),
        );
}

#[test]
fn latin1_round_trip_and_refusal() {
    let out = utf8kit()
        .args(["convert", "--from", "latin1", "--to", "utf-8"])
        .write_stdin(b"caf\xE9 \xFF".as_slice())
        .assert()
        .success();
    assert_eq!(stdout_of(&out), "café ÿ");
    utf8kit()
        .args(["convert", "--to", "latin1"])
        .write_stdin("café €")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("U+20AC"));
    utf8kit()
        .args(["convert", "--lossy", "--to", "latin1"])
        .write_stdin("café €")
        .assert()
        .success()
        .stdout(b"caf\xE9 ?".as_slice());
}

#[test]
fn latin1_output_over_many_chunks_matches_a_char_by_char_encoding() {
    // ~1.5 MB, several read chunks, with characters outside Latin-1 all
    // through it (and across chunk ends).
    let text = "Grüße, Привет! café ÿ €uro — ok. ".repeat(40_000);
    let want: Vec<u8> = text
        .chars()
        .map(|c| u8::try_from(c).unwrap_or(b'?'))
        .collect();
    let out = utf8kit()
        .args(["convert", "--lossy", "--to", "latin1"])
        .write_stdin(text.clone())
        .assert()
        .success();
    assert_eq!(out.get_output().stdout, want);
    let unrepresentable = text.chars().filter(|&c| u32::from(c) > 0xFF).count();
    out.stderr(predicate::str::contains(format!(
        "{unrepresentable} character(s) with '?'"
    )));

    // Strict: the first character above U+00FF, counted over the whole
    // input, in a later chunk.
    let mut late = "é".repeat(300_000);
    late.push_str("ab€");
    utf8kit()
        .args(["convert", "--to", "latin1"])
        .write_stdin(late)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("U+20AC")
                .and(predicate::str::contains("character 300002 of the text")),
        );
}

#[test]
fn utf32_input_errors_and_replacements() {
    let units = |us: &[u32]| -> Vec<u8> { us.iter().flat_map(|u| u.to_le_bytes()).collect() };
    utf8kit()
        .args(["convert", "--from", "utf-32le", "--to", "utf-8"])
        .write_stdin(units(&[0x41, 0x1F600, 0xD800, 0x42]))
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("U+D800 is not a Unicode scalar value")
                .and(predicate::str::contains("at byte 8")),
        );
    let mut truncated = units(&[0x41, 0x42]);
    truncated.extend_from_slice(&[0x43, 0x00]);
    utf8kit()
        .args(["convert", "--from", "utf-32le", "--to", "utf-8"])
        .write_stdin(truncated)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("truncated UTF-32 code unit")
                .and(predicate::str::contains("at byte 8")),
        );
    // Lossy: a genuine U+FFFD in the input is not counted as a replacement.
    let mut input = units(&[0x41, 0x110000, 0xFFFD, 0xDFFF, 0x42]);
    input.extend_from_slice(&[0x43]);
    let out = utf8kit()
        .args(["convert", "--lossy", "--from", "utf-32le", "--to", "utf-8"])
        .write_stdin(input)
        .assert()
        .success()
        .stderr(predicate::str::contains("3 invalid sequence(s) replaced"));
    assert_eq!(stdout_of(&out), "A\u{FFFD}\u{FFFD}\u{FFFD}B\u{FFFD}");
    // Big-endian output of text with every UTF-8 length.
    let text = "aé€😀".repeat(1000);
    let out = utf8kit()
        .args(["convert", "--to", "utf-32be"])
        .write_stdin(text.clone())
        .assert()
        .success();
    let want: Vec<u8> = text
        .chars()
        .flat_map(|c| u32::from(c).to_be_bytes())
        .collect();
    assert_eq!(out.get_output().stdout, want);
}

#[test]
fn bom_policies() {
    let with_bom = b"\xEF\xBB\xBFhi".as_slice();
    let run = |policy: &str, input: &[u8]| {
        let out = utf8kit()
            .args(["convert", "--to", "utf-16le", "--bom", policy])
            .write_stdin(input.to_vec())
            .assert()
            .success();
        out.get_output().stdout.clone()
    };
    assert_eq!(run("keep", with_bom), b"\xFF\xFEh\x00i\x00");
    assert_eq!(run("strip", with_bom), b"h\x00i\x00");
    assert_eq!(run("add", b"hi"), b"\xFF\xFEh\x00i\x00");
    assert_eq!(run("keep", b"hi"), b"h\x00i\x00");
}

#[test]
fn in_place_converts_many_files_keeping_permissions_and_backups() {
    let dir = TempDir::new().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    let bad = dir.path().join("bad.txt");
    write(&a, b"caf\xE9");
    write(&b, b"na\xEFve");
    write(&bad, b"ok");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&a, fs::Permissions::from_mode(0o640)).unwrap();
    }
    utf8kit()
        .args([
            "convert",
            "--from",
            "latin1",
            "--to",
            "utf-8",
            "--in-place",
            "--backup",
        ])
        .arg(&a)
        .arg(&b)
        .assert()
        .success();
    assert_eq!(fs::read_to_string(&a).unwrap(), "café");
    assert_eq!(fs::read_to_string(&b).unwrap(), "naïve");
    assert_eq!(fs::read(dir.path().join("a.txt.orig")).unwrap(), b"caf\xE9");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&a).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }
    // A file that fails strict conversion is left untouched.
    write(&bad, b"ok \xFF");
    utf8kit()
        .args(["convert", "--to", "utf-16le", "--in-place"])
        .arg(&bad)
        .assert()
        .code(1);
    assert_eq!(fs::read(&bad).unwrap(), b"ok \xFF");
}

#[test]
fn in_place_interrupted_before_rename_leaves_the_original() {
    let dir = TempDir::new().unwrap();
    let f = dir.path().join("f.txt");
    write(&f, "ünïcödé".as_bytes());
    let out = utf8kit()
        .args(["convert", "--to", "utf-16le", "--in-place"])
        .arg(&f)
        .env("UTF8KIT_TEST_ABORT_BEFORE_RENAME", "1")
        .assert()
        .failure();
    assert!(out.get_output().status.code().is_none_or(|c| c != 0));
    assert_eq!(fs::read_to_string(&f).unwrap(), "ünïcödé");
}

#[cfg(target_os = "linux")]
#[test]
fn writing_to_a_full_disk_is_a_clear_error() {
    let dir = TempDir::new().unwrap();
    let f = dir.path().join("in.txt");
    write(&f, "x".repeat(1 << 20).as_bytes());
    utf8kit()
        .args(["convert", "--to", "utf-16le", "-o", "/dev/full"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("cannot write output").and(predicate::str::contains("space")),
        );
    assert_eq!(fs::read(&f).unwrap().len(), 1 << 20);
}

#[test]
fn unknown_encodings_list_the_known_ones() {
    utf8kit()
        .args(["convert", "--to", "ebcdic"])
        .write_stdin("x")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("utf-16le"));
}

// ---- stats ----

#[test]
fn stats_counts_what_a_text_is_made_of() {
    let input = "\u{FEFF}Привет, мир!\r\nHello 😀\r\n世界\r\n"
        .as_bytes()
        .to_vec();
    let mut bad = input.clone();
    bad.extend_from_slice(b"\xC0\xAF");
    let out = utf8kit()
        .args(["stats", "--json", "-"])
        .write_stdin(bad.clone())
        .assert()
        .code(1);
    let rec = &json_lines(&stdout_of(&out))[0];
    let text = std::str::from_utf8(&input).unwrap();
    assert_eq!(rec["bytes"], bad.len());
    assert_eq!(rec["chars"], text.chars().count());
    assert_eq!(rec["lines"], 4); // three CRLF lines and the line holding the bad bytes
    assert_eq!(rec["line_endings"]["style"], "CRLF");
    assert_eq!(rec["bom"], "UTF-8");
    assert_eq!(rec["chars_by_length"]["4"], 1);
    assert_eq!(rec["chars_by_length"]["3"], 3); // BOM, 世, 界
    assert_eq!(rec["blocks"][0]["block"], "Basic Latin");
    assert_eq!(rec["blocks"][1]["block"], "Cyrillic");
    assert_eq!(rec["invalid_by_kind"]["overlong"], 1);
    assert_eq!(rec["invalid_by_kind"]["unexpected_continuation"], 1);

    let out = utf8kit()
        .args(["stats", "-"])
        .write_stdin(input)
        .assert()
        .success();
    let text = stdout_of(&out);
    assert!(
        text.contains("line endings     CRLF") && text.contains("none: valid UTF-8"),
        "{text}"
    );
}

// ---- completions and man ----

#[test]
fn completions_and_man_page_come_from_the_clap_definition() {
    let out = utf8kit().args(["completions", "bash"]).assert().success();
    let text = stdout_of(&out);
    assert!(
        text.contains("--max-errors") && text.contains("convert"),
        "bash completion"
    );
    let out = utf8kit().args(["man"]).assert().success();
    let text = stdout_of(&out);
    assert!(
        text.contains(".TH utf8kit") && text.contains("validate"),
        "man page"
    );
    let dir = TempDir::new().unwrap();
    utf8kit()
        .args(["man", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    assert!(dir.path().join("utf8kit-validate.1").exists());
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let bad = b"a\xFF".as_slice();
    // Piped output: no colour by default.
    utf8kit()
        .args(["validate", "-"])
        .write_stdin(bad)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("\x1b[").not());
    let out = utf8kit()
        .args(["validate", "--color", "always", "-"])
        .write_stdin(bad)
        .assert()
        .code(1);
    let text = stdout_of(&out);
    assert!(
        text.contains("\x1b[35m<stdin>\x1b[0m") && text.contains("\x1b[1;31minvalid byte\x1b[0m"),
        "{text:?}"
    );
    utf8kit()
        .args(["validate", "--color", "never", "-"])
        .write_stdin(bad)
        .assert()
        .stdout("<stdin>:1:2: invalid byte at byte 1: FF\n");
}
