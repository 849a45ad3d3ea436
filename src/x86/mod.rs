//! Everything that knows x86-64: registers, instruction forms, encoding.
