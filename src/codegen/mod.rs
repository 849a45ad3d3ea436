//! IR → MIR → machine code, and the variable-location machinery.
