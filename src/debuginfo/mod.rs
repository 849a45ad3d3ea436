//! From the IR's debug metadata and code generation's variable ranges to the
//! emit crate's `DebugInfo`: files, types, subprograms, scopes, variables.

pub mod build;
pub mod files;
pub mod locations;
pub mod scopes;
pub mod subprograms;
pub mod types;

pub use build::build;
