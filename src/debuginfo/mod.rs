//! From the IR's debug metadata and code generation's variable ranges to the
//! emit crate's `DebugInfo`: files, types, subprograms, scopes, variables.

pub mod build;
pub mod locations;
pub mod scopes;
pub mod types;

pub use build::build;
