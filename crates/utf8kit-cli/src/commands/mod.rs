//! One module per subcommand.

pub mod convert;
pub mod docs;
pub mod explain;
pub mod inspect;
pub mod stats;
pub mod validate;
