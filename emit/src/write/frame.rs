//! Call-frame information: `.eh_frame` from each function's [`CfiRow`]s.
//!
//! In: the functions, their layout in code sections and CFI rows, and the
//! exception tables. Out: an `.eh_frame` section (written by
//! `gimli::write::FrameTable`) with one CIE holding the SysV x86-64
//! initial rules (CFA = rsp + 8, return address at CFA - 8), one more per
//! personality routine (augmentation `zPLR` as llc writes it: the
//! personality as an `indirect pcrel sdata4` pointer to its reference
//! object, LSDA pointers `pcrel sdata4`; gimli writes `zLPR`, reordered
//! after it), and one FDE per non-empty
//! function, with its LSDA pointer when it has an exception table.
//! Promise: FDE addresses are PC-relative 4-byte pointers relocated against
//! the function's code section, so the object links into a PIE and gdb can unwind through it.

use gimli::write::Writer;
use gimli::write::{
    Address, CallFrameInstruction, CommonInformationEntry, EhFrame, FrameDescriptionEntry,
    FrameTable,
};
use gimli::{Encoding, Format, Register, X86_64};

use super::elf::{check_code_offset, Layout};
use super::relocate::{data_symbol, exception_table_symbol, RelocatedSection};
use super::WriteError;
use crate::model::{CfiInstruction, ObjectModel};

/// Writes the `.eh_frame` of all functions into `eh_frame`.
pub fn write_eh_frame(
    model: &ObjectModel,
    layout: &Layout,
    eh_frame: &mut EhFrame<RelocatedSection>,
) -> Result<(), WriteError> {
    let mut table = FrameTable::default();
    let encoding = Encoding {
        format: Format::Dwarf32,
        version: 1,
        address_size: 8,
    };
    let pcrel = gimli::DW_EH_PE_pcrel | gimli::DW_EH_PE_sdata4;
    let new_cie = || {
        let mut cie = CommonInformationEntry::new(encoding, 1, -8, X86_64::RA);
        cie.fde_address_encoding = pcrel;
        cie.add_instruction(CallFrameInstruction::Cfa(X86_64::RSP, 8));
        cie.add_instruction(CallFrameInstruction::Offset(X86_64::RA, -8));
        cie
    };
    let plain = table.add_cie(new_cie());
    // Per function: its exception table's index and its CIE.
    let mut exception_tables = vec![None; model.functions.len()];
    for (index, exception_table) in model.exception_tables.iter().enumerate() {
        let reference = &exception_table.personality_reference;
        let Some(data) = model.data.iter().position(|d| d.name == *reference) else {
            return Err(WriteError::new(format!(
                "personality reference `{reference}` is no data object"
            )));
        };
        let mut cie = new_cie();
        cie.personality = Some((
            gimli::DW_EH_PE_indirect | pcrel,
            Address::Symbol {
                symbol: data_symbol(data),
                addend: 0,
            },
        ));
        cie.lsda_encoding = Some(pcrel);
        let cie = table.add_cie(cie);
        if let Some(slot) = exception_tables.get_mut(exception_table.function) {
            *slot = Some((index, cie));
        }
    }

    for (index, function) in model.functions.iter().enumerate() {
        if function.code.is_empty() {
            continue;
        }
        let what = format!("CFI of `{}`", function.name);
        let mut fde =
            FrameDescriptionEntry::new(layout.address(index, 0), function.code.len() as u32);
        let mut cie = plain;
        if let Some((exception_table, with_personality)) = exception_tables[index] {
            fde.lsda = Some(Address::Symbol {
                symbol: exception_table_symbol(exception_table),
                addend: 0,
            });
            cie = with_personality;
        }
        let mut previous = 0;
        for row in &function.cfi {
            check_code_offset(function, row.offset, &what)?;
            if row.offset < previous {
                return Err(WriteError::new(format!(
                    "{what}: row at {:#x} comes after one at {previous:#x}",
                    row.offset
                )));
            }
            previous = row.offset;
            fde.add_instruction(row.offset as u32, instruction(row.instruction));
        }
        table.add_fde(cie, fde);
    }
    table
        .write_eh_frame(eh_frame)
        .map_err(|e| WriteError::new(format!(".eh_frame: {e}")))?;
    personality_first(eh_frame)
}

/// Rewrites each CIE gimli writes with augmentation `zLPR` into llc's
/// `zPLR`: the personality's encoding and pointer before the LSDA
/// encoding (the same meaning; readers follow the string's order), its
/// relocation one byte earlier.
fn personality_first(eh_frame: &mut EhFrame<RelocatedSection>) -> Result<(), WriteError> {
    let indirect = |r: &gimli::write::Relocation| {
        r.eh_pe
            .is_some_and(|pe| pe.0 & gimli::DW_EH_PE_indirect.0 != 0)
    };
    let section: &mut RelocatedSection = eh_frame;
    let personalities: Vec<usize> = section
        .relocations
        .iter()
        .filter(|r| indirect(r))
        .map(|r| r.offset)
        .collect();
    let mut bytes = section.bytes.take();
    for &pointer in &personalities {
        // `z L P R \0` ... `len, L-enc, P-enc, pointer(4), R-enc`.
        let (lsda_encoding, personality_encoding) = (pointer - 2, pointer - 1);
        let augmentation = bytes[..lsda_encoding]
            .windows(5)
            .rposition(|w| w == b"zLPR\0")
            .ok_or_else(|| WriteError::new(".eh_frame: a personality outside a zLPR CIE".into()))?;
        bytes[augmentation..augmentation + 4].copy_from_slice(b"zPLR");
        let lsda = bytes[lsda_encoding];
        bytes.copy_within(personality_encoding..pointer + 4, lsda_encoding);
        bytes[pointer + 3] = lsda;
    }
    for relocation in &mut section.relocations {
        if indirect(relocation) {
            relocation.offset -= 1;
        }
    }
    section
        .bytes
        .write(&bytes)
        .map_err(|e| WriteError::new(format!(".eh_frame: {e}")))
}

/// The gimli form of one model CFI instruction.
fn instruction(instruction: CfiInstruction) -> CallFrameInstruction {
    match instruction {
        CfiInstruction::DefCfaOffset(offset) => CallFrameInstruction::CfaOffset(offset as i32),
        CfiInstruction::DefCfaRegister(register) => {
            CallFrameInstruction::CfaRegister(Register(register))
        }
        CfiInstruction::DefCfa { register, offset } => {
            CallFrameInstruction::Cfa(Register(register), offset as i32)
        }
        CfiInstruction::Offset { register, offset } => {
            CallFrameInstruction::Offset(Register(register), offset)
        }
        CfiInstruction::Restore(register) => CallFrameInstruction::Restore(Register(register)),
        CfiInstruction::RememberState => CallFrameInstruction::RememberState,
        CfiInstruction::RestoreState => CallFrameInstruction::RestoreState,
    }
}
