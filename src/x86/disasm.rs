//! Disassembly of encoded code, for snapshots and `--print` output.
//!
//! In: machine code bytes. Out: one line per instruction, `offset: text` in
//! Intel syntax (iced-x86's decoder and formatter). Branch targets are
//! printed as offsets from the start of the code.

use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter};

/// Disassembles `code` as it would run at address 0.
pub fn disassemble(code: &[u8]) -> String {
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut formatter = IntelFormatter::new();
    formatter
        .options_mut()
        .set_space_after_operand_separator(true);
    formatter.options_mut().set_hex_prefix("0x");
    formatter.options_mut().set_hex_suffix("");
    formatter.options_mut().set_branch_leading_zeros(false);
    formatter.options_mut().set_uppercase_hex(false);
    let mut out = String::new();
    let mut text = String::new();
    for instr in &mut decoder {
        text.clear();
        formatter.format(&instr, &mut text);
        out.push_str(&format!("{:4x}: {text}\n", instr.ip()));
    }
    out
}
