//! Writing an ObjectModel as ELF bytes (to be written).
