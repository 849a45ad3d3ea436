//! Reading an ELF x86-64 object back into an ObjectModel (to be written).
