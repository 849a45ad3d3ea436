//! Structural and debug-info invariants of an IR module.
