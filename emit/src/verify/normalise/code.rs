//! The normal form of functions and data objects: where the writer puts
//! them and how `read` names what their relocations point at.
//!
//! In: the model's functions and data objects.
//! Out: the same, as reading the written object gives them back.
//!
//! This restates the writer's documented layout (write/elf.rs) and
//! `read`'s naming (read/object.rs):
//! - functions sit in `.text` in order, each 16-byte aligned; each one's
//!   rodata sits in `.rodata`, 8-byte aligned, in function order, then the
//!   read-only data objects without relocations; a function's rodata reads
//!   back padded up to where the next thing in `.rodata` starts (it is
//!   assumed that each function's code points at the start of its own
//!   rodata, as a jump table's is);
//! - data objects come back by section (in the order the writer makes the
//!   sections: `.rodata` first when a function has rodata, then by first
//!   use), in model order within one, each with its section's alignment
//!   (the largest asked for in it), `.bss` bytes as zeros;
//! - a function's literals are those its code's relocations name, in the
//!   order of the first relocation (by offset) naming each, renumbered so
//!   (`read` finds them so in `.rodata.cst4/8/16`);
//! - a relocation against a named symbol keeps it; one against
//!   [`Symbol::FunctionCode`] or [`Symbol::FunctionData`] is looked up as
//!   `read` does: 4 bytes past the address it computes for a PC-relative
//!   field in code, back by the field's offset for one in data (a
//!   jump-table entry), at that address for `Abs64`; giving `FunctionCode`
//!   (or the function's name at its first byte) with the rest in the
//!   addend, or `FunctionData` of the function whose rodata holds it.

use crate::model::{DataObject, DataSection, Function, Relocation, Symbol};

/// Alignment of each function in `.text` (write/elf.rs `FUNCTION_ALIGN`).
const FUNCTION_ALIGN: u64 = 16;
/// Alignment of each function's rodata (write/elf.rs `FUNCTION_RODATA_ALIGN`).
const FUNCTION_RODATA_ALIGN: u64 = 8;

/// Where the writer places things in `.text` and `.rodata`.
struct Layout {
    /// Start of each function in `.text`.
    function_offsets: Vec<u64>,
    /// Start and padded length of each function's rodata in `.rodata`.
    rodata: Vec<Option<(u64, u64)>>,
}

impl Layout {
    fn of(functions: &[Function], data: &[DataObject]) -> Layout {
        let mut function_offsets = Vec::with_capacity(functions.len());
        let mut end = 0u64;
        for function in functions {
            let start = end.next_multiple_of(FUNCTION_ALIGN);
            function_offsets.push(start);
            end = start + function.code.len() as u64;
        }
        let mut starts = Vec::with_capacity(functions.len());
        let mut end = 0u64;
        for function in functions {
            if function.rodata.is_empty() {
                starts.push(None);
            } else {
                let start = end.next_multiple_of(FUNCTION_RODATA_ALIGN);
                starts.push(Some((start, function.rodata.len() as u64)));
                end = start + function.rodata.len() as u64;
            }
        }
        // Each function's rodata runs to the next thing in `.rodata`.
        let first_object_align = data
            .iter()
            .find(|d| d.section == DataSection::ReadOnly && d.relocations.is_empty())
            .map(|d| d.align.max(1));
        let mut rodata = starts.clone();
        let placed: Vec<usize> = (0..starts.len()).filter(|&i| starts[i].is_some()).collect();
        for (k, &index) in placed.iter().enumerate() {
            let (start, len) = starts[index].expect("placed");
            let next = match placed.get(k + 1) {
                Some(&next) => starts[next].expect("placed").0,
                None => match first_object_align {
                    Some(align) => (start + len).next_multiple_of(align),
                    None => start + len,
                },
            };
            rodata[index] = Some((start, next - start));
        }
        Layout {
            function_offsets,
            rodata,
        }
    }
}

/// The functions and data objects as reading the written object gives
/// them back, and where each data object went.
pub(crate) struct NormalCode {
    /// The functions.
    pub functions: Vec<Function>,
    /// The data objects, in the order they are read back.
    pub data: Vec<DataObject>,
    /// New index of each model data object.
    pub data_order: Vec<usize>,
}

/// The functions and data objects as reading the written object gives
/// them back.
pub(crate) fn normal_code_and_data(functions: &[Function], data: &[DataObject]) -> NormalCode {
    let layout = Layout::of(functions, data);
    let in_code = |relocation: &Relocation| normal_relocation(relocation, true, functions, &layout);
    let resolve =
        |relocation: &Relocation| normal_relocation(relocation, false, functions, &layout);
    let normal_functions = functions
        .iter()
        .enumerate()
        .map(|(index, function)| {
            let mut rodata = function.rodata.clone();
            if let Some((_, padded)) = layout.rodata[index] {
                rodata.resize(padded as usize, 0);
            }
            let relocations: Vec<Relocation> = function.relocations.iter().map(in_code).collect();
            let (literals, relocations) = normal_literals(index, function, relocations);
            Function {
                relocations,
                rodata_relocations: function.rodata_relocations.iter().map(resolve).collect(),
                rodata,
                literals,
                ..function.clone()
            }
        })
        .collect();
    let (data, data_order) = normal_data(functions, data, &resolve);
    NormalCode {
        functions: normal_functions,
        data,
        data_order,
    }
}

/// Function number `index`'s literals as `read` finds them: those its
/// code's relocations name, in the order of the first relocation (by
/// offset) naming each, the relocations renumbered to match.
fn normal_literals(
    index: usize,
    function: &Function,
    mut relocations: Vec<Relocation>,
) -> (Vec<Vec<u8>>, Vec<Relocation>) {
    let mut by_offset: Vec<&Relocation> = relocations.iter().collect();
    by_offset.sort_by_key(|r| r.offset);
    let mut order: Vec<usize> = Vec::new();
    for relocation in by_offset {
        if let Symbol::Literal {
            function: f,
            index: n,
        } = relocation.symbol
        {
            if f == index && n < function.literals.len() && !order.contains(&n) {
                order.push(n);
            }
        }
    }
    for relocation in &mut relocations {
        if let Symbol::Literal {
            function: f,
            index: n,
        } = &mut relocation.symbol
        {
            if let Some(new) = order.iter().position(|&o| o == *n).filter(|_| *f == index) {
                *n = new;
            }
        }
    }
    let literals = order
        .iter()
        .map(|&n| function.literals[n].clone())
        .collect();
    (literals, relocations)
}

/// The writer's section for a data object, as an ordering key of its own.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OutputSection {
    Data,
    ReadOnly,
    ReadOnlyWithRelocations,
    Bss,
    Common,
    Strings,
    ThreadLocal,
    ThreadLocalBss,
}

fn output_section(data: &DataObject) -> OutputSection {
    match data.section {
        DataSection::Data => OutputSection::Data,
        DataSection::ReadOnly if data.relocations.is_empty() => OutputSection::ReadOnly,
        DataSection::ReadOnly => OutputSection::ReadOnlyWithRelocations,
        DataSection::Bss => OutputSection::Bss,
        DataSection::Common => OutputSection::Common,
        DataSection::Strings => OutputSection::Strings,
        DataSection::ThreadLocal => OutputSection::ThreadLocal,
        DataSection::ThreadLocalBss => OutputSection::ThreadLocalBss,
    }
}

fn normal_data(
    functions: &[Function],
    data: &[DataObject],
    resolve: &dyn Fn(&Relocation) -> Relocation,
) -> (Vec<DataObject>, Vec<usize>) {
    let mut order: Vec<OutputSection> = Vec::new();
    if functions.iter().any(|f| !f.rodata.is_empty()) {
        order.push(OutputSection::ReadOnly);
    }
    for object in data {
        let section = output_section(object);
        if !order.contains(&section) {
            order.push(section);
        }
    }
    let section_align = |section: OutputSection| {
        let rodata = if section == OutputSection::ReadOnly
            && functions.iter().any(|f| !f.rodata.is_empty())
        {
            FUNCTION_RODATA_ALIGN
        } else {
            1
        };
        data.iter()
            .filter(|d| output_section(d) == section)
            .map(|d| d.align)
            .fold(rodata, u64::max)
    };
    let mut normal = Vec::with_capacity(data.len());
    let mut data_order = vec![0; data.len()];
    for &section in &order {
        for (index, object) in data
            .iter()
            .enumerate()
            .filter(|(_, d)| output_section(d) == section)
        {
            data_order[index] = normal.len();
            normal.push(DataObject {
                align: section_align(section),
                bytes: if object.section.is_bss() {
                    vec![0; object.bytes.len()]
                } else {
                    object.bytes.clone()
                },
                relocations: object.relocations.iter().map(resolve).collect(),
                ..object.clone()
            });
        }
    }
    (normal, data_order)
}

/// How far from the computed address `read` looks a target up: 4 bytes
/// on for a PC-relative field in code, back by the field's offset for one
/// in data, nowhere for an absolute field.
fn shift(relocation: &Relocation, in_code: bool) -> i64 {
    match (relocation.kind, in_code) {
        (kind, _) if !kind.is_pc_relative() => 0,
        (_, true) => 4,
        (_, false) => -(relocation.offset as i64),
    }
}

fn normal_relocation(
    relocation: &Relocation,
    in_code: bool,
    functions: &[Function],
    layout: &Layout,
) -> Relocation {
    let shift = shift(relocation, in_code);
    let (symbol, addend) = match relocation.symbol {
        Symbol::Named(_) | Symbol::Literal { .. } => return relocation.clone(),
        Symbol::FunctionCode { function, offset } => {
            let Some(&start) = layout.function_offsets.get(function) else {
                return relocation.clone();
            };
            let address = (start + offset).wrapping_add_signed(relocation.addend);
            let probe = address.wrapping_add_signed(shift);
            let found = layout
                .function_offsets
                .iter()
                .zip(functions)
                .enumerate()
                .find(|(_, (&start, f))| probe >= start && probe < start + f.code.len() as u64);
            match found {
                Some((_, (&start, f))) if probe == start => (
                    Symbol::Named(f.name.clone()),
                    address.wrapping_sub(probe) as i64,
                ),
                Some((index, (&start, _))) => (
                    Symbol::FunctionCode {
                        function: index,
                        offset: probe - start,
                    },
                    address.wrapping_sub(probe) as i64,
                ),
                // Between functions: `read` keeps the section symbol.
                None => (Symbol::Named(".text".into()), address as i64),
            }
        }
        Symbol::FunctionData(function) => {
            let Some(Some((start, _))) = layout.rodata.get(function) else {
                return relocation.clone();
            };
            let address = start.wrapping_add_signed(relocation.addend);
            let probe = address.wrapping_add_signed(shift);
            let found = layout
                .rodata
                .iter()
                .enumerate()
                .find_map(|(index, placed)| {
                    placed
                        .filter(|&(s, len)| probe >= s && probe < s + len)
                        .map(|(s, _)| (index, s))
                });
            match found {
                Some((index, start)) => (
                    Symbol::FunctionData(index),
                    address.wrapping_sub(start) as i64,
                ),
                None => return relocation.clone(),
            }
        }
    };
    Relocation {
        symbol,
        addend,
        ..relocation.clone()
    }
}
