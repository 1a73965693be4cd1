//! The command line, declared once with clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Fast, exact UTF-8: find where it is broken and why.
#[derive(Debug, Parser)]
#[command(name = "utf8kit", version, about, long_about = None)]
#[command(after_help = "Examples:\n  \
    utf8kit validate notes.txt data/*.csv\n  \
    cat dump.sql | utf8kit validate --json -\n  \
    utf8kit explain --hex \"E4 B8 96 C0 AF\"\n  \
    utf8kit inspect U+1F600")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check that inputs are valid UTF-8 and report every error's place and kind.
    ///
    /// Text output prints one line per error, `PATH:LINE:COLUMN: KIND at byte
    /// OFFSET: HEX`, nothing for valid inputs. Lines and columns are 1-based;
    /// the column counts characters, an invalid sequence counting as one.
    ///
    /// Exit status: 0 if every input is valid, 1 if some input is invalid,
    /// 2 if some input could not be read (the others are still checked).
    #[command(after_help = "Examples:\n  \
        utf8kit validate README.md src/data.txt\n  \
        utf8kit validate --summary ~/project           # a whole tree, on every core\n  \
        utf8kit validate --max-errors 0 big.log      # every error\n  \
        printf 'a\\xC0\\xAF' | utf8kit validate --json -")]
    Validate(ValidateArgs),

    /// Show how Hoehrmann's DFA reads a byte sequence, byte by byte, and say
    /// in plain words what is wrong with it.
    #[command(after_help = "Examples:\n  \
        utf8kit explain 'héllo'\n  \
        utf8kit explain --hex \"E4 B8 96\"\n  \
        utf8kit explain --hex \"ED A0 80 C0 AF\"\n  \
        utf8kit explain --file suspicious.bin")]
    Explain(ExplainArgs),

    /// Show a character's code point, UTF-8 bytes (with payload bits marked),
    /// UTF-16 units, CESU-8 and Modified UTF-8 bytes and its Plan 9 `Tab` row.
    #[command(after_help = "Examples:\n  \
        utf8kit inspect 世\n  \
        utf8kit inspect U+1F600\n  \
        utf8kit inspect 'naïve'       # every character in turn")]
    Inspect(InspectArgs),

    /// Convert between encodings: utf-8, utf-16le, utf-16be, utf-32le,
    /// utf-32be, latin1, cesu-8, mutf-8.
    ///
    /// Strict by default: the first invalid sequence stops the conversion and
    /// nothing is written. With --lossy each invalid sequence becomes U+FFFD
    /// (a character Latin-1 lacks becomes '?') and the count is reported.
    /// Files are written through a temporary file that replaces the target
    /// only when the conversion succeeded. Input is streamed in constant memory.
    #[command(after_help = "Examples:\n  \
        utf8kit convert --from utf-16le --to utf-8 export.csv -o export.utf8.csv\n  \
        utf8kit convert --from latin1 --to utf-8 --in-place --backup *.txt\n  \
        cat dump | utf8kit convert --lossy --to utf-8 > clean.txt")]
    Convert(ConvertArgs),

    /// Count what inputs are made of: bytes, characters, lines, line endings,
    /// BOM, characters by encoded length, Unicode blocks, invalid sequences.
    #[command(after_help = "Examples:\n  \
        utf8kit stats novel.txt\n  \
        utf8kit stats --json --top 3 *.csv")]
    Stats(StatsArgs),

    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "Examples:\n  \
        utf8kit completions bash > ~/.local/share/bash-completion/completions/utf8kit\n  \
        utf8kit completions zsh > ~/.zfunc/_utf8kit")]
    Completions(CompletionsArgs),

    /// Print the man page (roff), or write one page per subcommand to a directory.
    #[command(after_help = "Examples:\n  \
        utf8kit man | man -l -\n  \
        utf8kit man --dir target/man")]
    Man(ManArgs),
}

/// Arguments of `utf8kit convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Input file(s); `-` or nothing reads standard input. Several files
    /// need --in-place.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Encoding of the input.
    #[arg(long, value_name = "ENC", default_value = "utf-8")]
    pub from: String,

    /// Encoding of the output.
    #[arg(long, value_name = "ENC")]
    pub to: String,

    /// Stop at the first error and write nothing (the default).
    #[arg(long, conflicts_with = "lossy")]
    pub strict: bool,

    /// Replace invalid input with U+FFFD (one per maximal invalid sequence)
    /// and characters the target lacks with '?'; report how many.
    #[arg(long)]
    pub lossy: bool,

    /// What to do with a byte-order mark.
    #[arg(long, value_enum, default_value_t = BomPolicy::Keep, value_name = "POLICY")]
    pub bom: BomPolicy,

    /// Write to PATH instead of standard output.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// Replace each input file with its conversion.
    #[arg(long)]
    pub in_place: bool,

    /// With --in-place or -o: keep the replaced file as NAME.orig.
    #[arg(long)]
    pub backup: bool,
}

/// `--bom` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BomPolicy {
    /// Write a BOM in the output encoding if the input had one.
    Keep,
    /// Never write a BOM.
    Strip,
    /// Always write a BOM.
    Add,
}

/// Arguments of `utf8kit stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Files to count; `-` (or nothing) reads standard input.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Print one JSON object per input instead of a table.
    #[arg(long)]
    pub json: bool,

    /// How many Unicode blocks to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
}

/// Arguments of `utf8kit completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `utf8kit man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write `utf8kit.1` and `utf8kit-SUBCOMMAND.1` pages into this directory
    /// instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Arguments of `utf8kit validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Files and directories to check; `-` (or nothing) reads standard input.
    /// Directories are walked recursively, skipping hidden files and what
    /// `.gitignore`/`.ignore` files exclude.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Print one JSON object per input (JSON Lines) instead of text.
    #[arg(long)]
    pub json: bool,

    /// Report at most N errors per input; 0 means all. Default: 1 for text
    /// output, all for `--json`.
    #[arg(long, value_name = "N")]
    pub max_errors: Option<usize>,

    /// Print totals at the end: files, bytes, invalid files, errors by kind,
    /// elapsed time and throughput.
    #[arg(long)]
    pub summary: bool,

    /// Print nothing; the exit status tells the result.
    #[arg(short, long)]
    pub quiet: bool,

    /// Walk hidden files and directories too.
    #[arg(long)]
    pub hidden: bool,

    /// Don't honour .gitignore, .ignore and git exclude files.
    #[arg(long)]
    pub no_ignore: bool,

    /// Follow symbolic links while walking directories (loops are detected
    /// and reported).
    #[arg(short = 'L', long)]
    pub follow: bool,

    /// Only check walked files matching GLOB; `!GLOB` excludes. Repeatable.
    /// Files named on the command line are always checked.
    #[arg(short, long = "glob", value_name = "GLOB")]
    pub globs: Vec<String>,

    /// Skip files that look binary (a NUL byte in the first 8 KiB) and count
    /// them in the summary. Note that UTF-16 text looks binary.
    #[arg(long)]
    pub skip_binary: bool,

    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,

    /// When to colour the output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// `--color` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Arguments of `utf8kit explain`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["text", "hex", "file"])))]
pub struct ExplainArgs {
    /// A string to explain (its UTF-8 bytes, as the shell passed them).
    #[arg(value_name = "STRING")]
    pub text: Option<std::ffi::OsString>,

    /// Bytes as hexadecimal, e.g. "E4 B8 96", "e4b896" or "\xE4\xB8\x96".
    #[arg(long, value_name = "HEX")]
    pub hex: Option<String>,

    /// Explain the bytes of a file.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,

    /// Show at most N bytes of the trace table (errors are all explained).
    #[arg(long, value_name = "N", default_value_t = 4096)]
    pub limit: usize,
}

/// Arguments of `utf8kit inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// Characters or code points: `世`, `U+4E16`, `u+1f600`, `0x41`. A string
    /// of several characters is inspected character by character.
    #[arg(value_name = "CHAR|U+XXXX", required = true)]
    pub items: Vec<String>,
}
