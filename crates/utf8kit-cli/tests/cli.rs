//! End-to-end tests: run the `utf8kit` binary and check what it prints.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

fn utf8kit() -> Command {
    Command::cargo_bin("utf8kit").expect("binary built")
}

fn write(dir: &TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

fn json_lines(stdout: &[u8]) -> Vec<Value> {
    std::str::from_utf8(stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is a JSON object"))
        .collect()
}

// ---- validate ----

#[test]
fn valid_inputs_print_nothing_and_exit_0() {
    let dir = TempDir::new().unwrap();
    let a = write(&dir, "a.txt", "Hello, 世界 😀\n".as_bytes());
    let empty = write(&dir, "empty.txt", b"");
    utf8kit()
        .args(["validate", &a, &empty])
        .assert()
        .success()
        .stdout("");
}

#[test]
fn readme_example_reports_line_column_kind_offset_and_bytes() {
    let dir = TempDir::new().unwrap();
    let bad = write(&dir, "bad.txt", b"ab\ncd\xC0\xAFef");
    utf8kit()
        .args(["validate", &bad])
        .assert()
        .code(1)
        .stdout(format!("{bad}:2:3: overlong encoding at byte 5: C0\n"));
}

#[test]
fn text_output_shows_the_first_error_unless_asked_for_more() {
    let dir = TempDir::new().unwrap();
    let bad = write(&dir, "bad.txt", "é\u{1F600}\n".as_bytes());
    // Replace the emoji's last byte and add more errors after it.
    let mut bytes = fs::read(&bad).unwrap();
    bytes[5] = b'x';
    bytes.extend_from_slice(b"\xED\xA0\x80 \xF8 \xE4\xB8");
    fs::write(&bad, &bytes).unwrap();

    let first = utf8kit().args(["validate", &bad]).assert().code(1);
    let first = String::from_utf8(first.get_output().stdout.clone()).unwrap();
    assert_eq!(
        first,
        format!("{bad}:1:2: incomplete sequence at byte 2: F0 9F 98\n")
    );

    let all = utf8kit()
        .args(["validate", "--max-errors", "0", &bad])
        .assert()
        .code(1);
    let all = String::from_utf8(all.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(
        lines,
        [
            format!("{bad}:1:2: incomplete sequence at byte 2: F0 9F 98"),
            format!("{bad}:2:1: encoded surrogate at byte 7: ED"),
            format!("{bad}:2:2: unexpected continuation byte at byte 8: A0"),
            format!("{bad}:2:3: unexpected continuation byte at byte 9: 80"),
            format!("{bad}:2:5: invalid byte at byte 11: F8"),
            format!("{bad}:2:7: incomplete sequence at byte 13: E4 B8"),
        ]
    );
    let two = utf8kit()
        .args(["validate", "--max-errors", "2", &bad])
        .assert()
        .code(1);
    assert_eq!(
        two.get_output()
            .stdout
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        2
    );
}

#[test]
fn json_output_has_one_object_per_input() {
    let dir = TempDir::new().unwrap();
    let good = write(&dir, "good.txt", "привет".as_bytes());
    let bad = write(&dir, "bad.txt", b"a\xC0\xAF\nb\xE4\xB8");
    let out = utf8kit()
        .args(["validate", "--json", &good, &bad])
        .assert()
        .code(1);
    let records = json_lines(&out.get_output().stdout);
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["path"], good.as_str());
    assert_eq!(records[0]["valid"], true);
    assert_eq!(records[0]["bytes"], 12);
    assert_eq!(records[0]["errors"], serde_json::json!([]));
    assert_eq!(records[1]["valid"], false);
    assert_eq!(records[1]["bytes"], 7);
    assert_eq!(
        records[1]["errors"],
        serde_json::json!([
            {"offset": 1, "len": 1, "kind": "overlong", "line": 1, "column": 2},
            {"offset": 2, "len": 1, "kind": "unexpected_continuation", "line": 1, "column": 3},
            {"offset": 5, "len": null, "kind": "incomplete", "line": 2, "column": 2},
        ])
    );
    // Keys come in the documented order.
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with(&format!(
        "{{\"path\":\"{good}\",\"valid\":true,\"bytes\":12,\"errors\":[]}}"
    )));
}

#[test]
fn stdin_is_read_for_dash_and_for_no_paths() {
    utf8kit()
        .args(["validate", "-"])
        .write_stdin(b"ok\xFF".as_slice())
        .assert()
        .code(1)
        .stdout("<stdin>:1:3: invalid byte at byte 2: FF\n");
    utf8kit()
        .arg("validate")
        .write_stdin("fine")
        .assert()
        .success()
        .stdout("");
}

#[test]
fn unreadable_input_exits_2_and_the_others_are_still_checked() {
    let dir = TempDir::new().unwrap();
    let bad = write(&dir, "bad.txt", b"\x80");
    let missing = dir.path().join("missing.txt");
    utf8kit()
        .args(["validate", missing.to_str().unwrap(), &bad])
        .assert()
        .code(2)
        .stdout(format!(
            "{bad}:1:1: unexpected continuation byte at byte 0: 80\n"
        ))
        .stderr(predicate::str::contains("missing.txt"));
}

#[test]
fn error_in_the_last_byte_is_reported_as_incomplete() {
    let dir = TempDir::new().unwrap();
    let mut bytes = "x".repeat(1000).into_bytes();
    bytes.push(0xF0);
    let f = write(&dir, "tail.txt", &bytes);
    let out = utf8kit().args(["validate", "--json", &f]).assert().code(1);
    let rec = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(rec["errors"][0]["offset"], 1000);
    assert_eq!(rec["errors"][0]["len"], Value::Null);
    assert_eq!(rec["errors"][0]["kind"], "incomplete");
    assert_eq!(rec["errors"][0]["column"], 1001);
}

#[cfg(unix)]
#[test]
fn non_utf8_file_names_are_reported_not_fatal() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new().unwrap();
    let path = dir.path().join(OsStr::from_bytes(b"caf\xE9.txt"));
    fs::write(&path, b"\xC1\xBF").unwrap();
    utf8kit()
        .arg("validate")
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "caf\u{FFFD}.txt:1:1: overlong encoding at byte 0: C1",
        ));
}

#[test]
fn every_error_matches_std_lossy_positions() {
    // One report per U+FFFD that String::from_utf8_lossy produces.
    let input: &[u8] = b"\xF4\x90\x80\x80 \xE0\x80 \xC2 \xF0\x9F\x98\x80 \xEF\xBF";
    let dir = TempDir::new().unwrap();
    let f = write(&dir, "mixed.bin", input);
    let out = utf8kit().args(["validate", "--json", &f]).assert().code(1);
    let rec = &json_lines(&out.get_output().stdout)[0];
    let n = rec["errors"].as_array().unwrap().len();
    assert_eq!(
        n,
        String::from_utf8_lossy(input).matches('\u{FFFD}').count()
    );
    let kinds: Vec<&str> = rec["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        &kinds[..3],
        [
            "out_of_range",
            "unexpected_continuation",
            "unexpected_continuation"
        ]
    );
}

// ---- explain ----

#[test]
fn explain_reproduces_the_seed_worked_example_for_shi() {
    let out = utf8kit()
        .args(["explain", "--hex", "E4 B8 96"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).take(3).collect();
    assert!(rows[0].contains("E4    11100100      3"), "{text}");
    assert!(rows[1].contains("B8    10111000      7"), "{text}");
    assert!(rows[2].contains("96    10010110      9"), "{text}");
    assert!(rows[0].contains("0x4 "), "{text}");
    assert!(rows[1].contains("0x138"), "{text}");
    assert!(rows[2].contains("accept U+4E16 '世'"), "{text}");
    assert!(text.contains("valid UTF-8: 3 bytes, 1 characters"));
}

#[test]
fn explain_says_in_words_what_is_wrong() {
    let out = utf8kit()
        .args(["explain", "--hex", "61 62 63 20 78 79 C0 AF"])
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("REJECT"), "{text}");
    assert!(
        text.contains("byte 0xC0 at offset 6 starts an overlong encoding"),
        "{text}"
    );
    assert!(
        text.contains("byte 0xAF at offset 7 is a continuation byte"),
        "{text}"
    );

    let out = utf8kit()
        .args(["explain", "--hex", "ED A0 80"])
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("byte 0xED at offset 0 followed by 0xA0 starts an encoded UTF-16 surrogate")
    );

    let out = utf8kit()
        .args(["explain", "--hex", "F0 9F 98"])
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("starts a 4-byte sequence, but the input ends after 3 of its bytes"));
}

#[test]
fn explain_reads_strings_and_files() {
    utf8kit()
        .args(["explain", "é"])
        .assert()
        .success()
        .stdout(predicate::str::contains("accept U+00E9 'é'"));
    let dir = TempDir::new().unwrap();
    let f = write(&dir, "x.bin", b"\xF8");
    utf8kit()
        .args(["explain", "--file", &f])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "byte 0xF8 at offset 0 never appears in UTF-8",
        ));
}

#[test]
fn explain_rejects_bad_hex_clearly() {
    utf8kit()
        .args(["explain", "--hex", "E4 B"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("3 hex digits"));
}

// ---- inspect ----

#[test]
fn inspect_shows_every_encoding_of_an_emoji() {
    let out = utf8kit().args(["inspect", "U+1F600"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for want in [
        "U+1F600 😀",
        "UTF-8            F0 9F 98 80",
        "11110[000] 10[011111] 10[011000] 10[000000]",
        "UTF-16           D83D DE00  (surrogate pair)",
        "CESU-8           ED A0 BD ED B8 80",
        "Modified UTF-8   ED A0 BD ED B8 80",
        "Plan 9 Tab row   4 of 6",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

#[test]
fn inspect_nul_shows_the_java_two_byte_form() {
    utf8kit()
        .args(["inspect", "U+0000"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Modified UTF-8   C0 80"));
}

#[test]
fn inspect_explains_values_that_are_not_characters() {
    let out = utf8kit()
        .args(["inspect", "U+D800", "0x7FFFFFFF"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("a UTF-16 surrogate"), "{text}");
    assert!(text.contains("Plan 9 UTF-8     ED A0 80"), "{text}");
    assert!(
        text.contains("Plan 9 UTF-8     FD BF BF BF BF BF"),
        "{text}"
    );
    assert!(text.contains("Plan 9 Tab row   6 of 6"), "{text}");
}

#[test]
fn inspect_walks_each_character_of_a_string() {
    let out = utf8kit().args(["inspect", "aé"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("U+0061 a") && text.contains("U+00E9 é"),
        "{text}"
    );
}

#[test]
fn help_has_examples() {
    utf8kit()
        .args(["validate", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Examples:"));
    assert!(Path::new(env!("CARGO_BIN_EXE_utf8kit")).exists());
}
