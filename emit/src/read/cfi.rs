//! Call-frame information: `.eh_frame` (or `.debug_frame`) back into
//! per-function [`CfiRow`]s.
//!
//! In: a laid-out [`ElfObject`].
//! Out: for each function (by index), its CFI rows in address order.
//!
//! Promises: each FDE's instructions are attributed to the function its
//! initial address lies in, with offsets from that function's first byte.
//! The CIE's initial instructions are taken to be the SysV x86-64 ones the
//! model assumes. Instructions the model has no room for (expressions,
//! `DW_CFA_GNU_args_size`, `same_value`, ...) are left out; `.eh_frame` is
//! preferred, `.debug_frame` read when there is no `.eh_frame`.

use gimli::{
    BaseAddresses, CallFrameInstruction, CieOrFde, EhFrame, EndianSlice, LittleEndian,
    UnwindSection,
};

use super::elf::ElfObject;
use super::ReadError;
use crate::model::{CfiInstruction, CfiRow};

type Slice<'a> = EndianSlice<'a, LittleEndian>;

/// CFI rows for every function of `object` (`result[i]` for function `i`).
pub(crate) fn read_cfi(object: &ElfObject) -> Result<Vec<Vec<CfiRow>>, ReadError> {
    let mut rows = vec![Vec::new(); object.functions.len()];
    if let Some(index) = object.section_index(".eh_frame") {
        let data = object.relocated(index)?;
        let mut section = EhFrame::new(&data, LittleEndian);
        section.set_address_size(8);
        let bases = BaseAddresses::default().set_eh_frame(object.sections[index].address);
        collect(object, &section, &bases, ".eh_frame", &mut rows)?;
    } else if let Some(index) = object.section_index(".debug_frame") {
        let data = object.relocated(index)?;
        let mut section = gimli::DebugFrame::new(&data, LittleEndian);
        section.set_address_size(8);
        collect(
            object,
            &section,
            &BaseAddresses::default(),
            ".debug_frame",
            &mut rows,
        )?;
    }
    Ok(rows)
}

fn collect<'a, S>(
    object: &ElfObject,
    section: &S,
    bases: &BaseAddresses,
    name: &str,
    rows: &mut [Vec<CfiRow>],
) -> Result<(), ReadError>
where
    S: UnwindSection<Slice<'a>>,
{
    let error = |e: gimli::Error| ReadError::new(name, e.to_string());
    let mut entries = section.entries(bases);
    while let Some(entry) = entries.next().map_err(error)? {
        let CieOrFde::Fde(partial) = entry else {
            continue;
        };
        let fde = partial.parse(S::cie_from_offset).map_err(error)?;
        let Some((function, start)) = object.function_at(fde.initial_address()) else {
            continue;
        };
        let cie = fde.cie();
        let code_factor = cie.code_alignment_factor();
        let data_factor = cie.data_alignment_factor();
        let mut offset = start;
        let mut instructions = fde.instructions(section, bases);
        while let Some(instruction) = instructions.next().map_err(error)? {
            let rule = match instruction {
                CallFrameInstruction::AdvanceLoc { delta } => {
                    offset = offset.wrapping_add(u64::from(delta).wrapping_mul(code_factor));
                    None
                }
                CallFrameInstruction::SetLoc { address } => {
                    offset = address
                        .wrapping_sub(fde.initial_address())
                        .wrapping_add(start);
                    None
                }
                CallFrameInstruction::DefCfa { register, offset } => u32::try_from(offset)
                    .ok()
                    .map(|offset| CfiInstruction::DefCfa {
                        register: register.0,
                        offset,
                    }),
                CallFrameInstruction::DefCfaSf {
                    register,
                    factored_offset,
                } => factored_offset
                    .checked_mul(data_factor)
                    .and_then(|offset| u32::try_from(offset).ok())
                    .map(|offset| CfiInstruction::DefCfa {
                        register: register.0,
                        offset,
                    }),
                CallFrameInstruction::DefCfaRegister { register } => {
                    Some(CfiInstruction::DefCfaRegister(register.0))
                }
                CallFrameInstruction::DefCfaOffset { offset } => {
                    u32::try_from(offset).ok().map(CfiInstruction::DefCfaOffset)
                }
                CallFrameInstruction::DefCfaOffsetSf { factored_offset } => factored_offset
                    .checked_mul(data_factor)
                    .and_then(|offset| u32::try_from(offset).ok())
                    .map(CfiInstruction::DefCfaOffset),
                CallFrameInstruction::Offset {
                    register,
                    factored_offset,
                } => (factored_offset as i64)
                    .checked_mul(data_factor)
                    .and_then(|offset| i32::try_from(offset).ok())
                    .map(|offset| CfiInstruction::Offset {
                        register: register.0,
                        offset,
                    }),
                CallFrameInstruction::OffsetExtendedSf {
                    register,
                    factored_offset,
                } => factored_offset
                    .checked_mul(data_factor)
                    .and_then(|offset| i32::try_from(offset).ok())
                    .map(|offset| CfiInstruction::Offset {
                        register: register.0,
                        offset,
                    }),
                CallFrameInstruction::Restore { register } => {
                    Some(CfiInstruction::Restore(register.0))
                }
                CallFrameInstruction::RememberState => Some(CfiInstruction::RememberState),
                CallFrameInstruction::RestoreState => Some(CfiInstruction::RestoreState),
                _ => None,
            };
            if let Some(instruction) = rule {
                rows[function].push(CfiRow {
                    offset,
                    instruction,
                });
            }
        }
    }
    Ok(())
}
