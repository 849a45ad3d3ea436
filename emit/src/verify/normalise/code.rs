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
//!   sections: `.rodata` first when a function outside a COMDAT group has
//!   rodata, then by first use; a section of an explicit name is shared by
//!   that name, one in a COMDAT group is the object's own), in model order
//!   within one, each with its section's alignment (the largest asked for
//!   in it), `.bss` bytes as zeros;
//! - placement (`read/placement.rs`): a section name the writer would have
//!   chosen anyway reads back as none, the symbol kept at an object's first
//!   byte is `read`'s choice (the first global function symbol, the first
//!   local data symbol), aliases come by offset then name;
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
            let start = end.next_multiple_of(function.align.max(FUNCTION_ALIGN));
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
            let mut normal = Function {
                relocations,
                rodata_relocations: function.rodata_relocations.iter().map(resolve).collect(),
                rodata,
                literals,
                align: 0,
                ..function.clone()
            };
            normal_function_placement(&mut normal);
            normal
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

/// The standard sections a data object goes to without a name of its own
/// (read back as no name).
const STANDARD_DATA_SECTIONS: [&str; 7] = [
    ".data",
    ".rodata",
    ".data.rel.ro",
    ".bss",
    ".tdata",
    ".tbss",
    ".rodata.str1.1",
];

/// A function's placement as `read` finds it: no section name where the
/// writer's default applies (`.text`, or `.text.NAME` in a COMDAT group),
/// the symbol `read` keeps as the function's among those at its first
/// byte (the first global one, else the function's own), aliases by offset
/// then name.
fn normal_function_placement(function: &mut Function) {
    let default = match function.comdat {
        Some(_) => format!(".text.{}", function.name),
        None => ".text".to_string(),
    };
    if function.section_name.as_deref() == Some(default.as_str()) {
        function.section_name = None;
    }
    let owner = if function.global {
        None
    } else {
        function
            .aliases
            .iter()
            .position(|a| a.offset == 0 && a.global)
    };
    if let Some(index) = owner {
        let alias = &mut function.aliases[index];
        std::mem::swap(&mut function.name, &mut alias.name);
        std::mem::swap(&mut function.global, &mut alias.global);
        std::mem::swap(&mut function.binding, &mut alias.binding);
    }
    function
        .aliases
        .sort_by(|a, b| (a.offset, &a.name).cmp(&(b.offset, &b.name)));
}

/// A data object's placement as `read` finds it: no section name where
/// the writer's default applies (a standard section, or a standard one
/// with `.NAME` in a COMDAT group), a string in a COMDAT group read-only
/// data (its section is not mergeable), the symbol `read` keeps as the
/// object's among those at its first byte (the first local one, else the
/// object's own: locals come first in the symbol table), aliases by offset
/// then name.
fn normal_data_placement(data: &mut DataObject) {
    let default = match (&data.comdat, &data.section_name) {
        (Some(_), Some(name)) => STANDARD_DATA_SECTIONS
            .iter()
            .any(|s| *name == format!("{s}.{}", data.name)),
        (None, Some(name)) => STANDARD_DATA_SECTIONS.contains(&name.as_str()),
        (_, None) => false,
    };
    if default {
        data.section_name = None;
    }
    if data.comdat.is_some() && data.section == DataSection::Strings {
        data.section = DataSection::ReadOnly;
    }
    let owner = if data.global {
        data.aliases.iter().position(|a| a.offset == 0 && !a.global)
    } else {
        None
    };
    if let Some(index) = owner {
        let alias = &mut data.aliases[index];
        std::mem::swap(&mut data.name, &mut alias.name);
        std::mem::swap(&mut data.global, &mut alias.global);
        std::mem::swap(&mut data.binding, &mut alias.binding);
    }
    data.aliases
        .sort_by(|a, b| (a.offset, &a.name).cmp(&(b.offset, &b.name)));
}

/// The section a data object lands in, as an ordering key: a standard
/// one, one of an explicit name (shared by that name), or one of its own
/// (in a COMDAT group, by model index).
#[derive(Clone, PartialEq, Eq)]
enum SectionKey {
    Standard(OutputSection),
    Named(String),
    Own(usize),
}

fn section_key(index: usize, data: &DataObject) -> SectionKey {
    match (&data.comdat, &data.section_name) {
        (Some(_), _) => SectionKey::Own(index),
        (None, Some(name)) => SectionKey::Named(name.clone()),
        (None, None) => SectionKey::Standard(output_section(data)),
    }
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
    let rodata_first = functions
        .iter()
        .any(|f| !f.rodata.is_empty() && f.comdat.is_none());
    let mut order: Vec<SectionKey> = Vec::new();
    if rodata_first {
        order.push(SectionKey::Standard(OutputSection::ReadOnly));
    }
    for (index, object) in data.iter().enumerate() {
        let key = section_key(index, object);
        if !order.contains(&key) {
            order.push(key);
        }
    }
    let section_align = |key: &SectionKey| {
        let rodata = if *key == SectionKey::Standard(OutputSection::ReadOnly) && rodata_first {
            FUNCTION_RODATA_ALIGN
        } else {
            1
        };
        data.iter()
            .enumerate()
            .filter(|(index, d)| section_key(*index, d) == *key)
            .map(|(_, d)| d.align)
            .fold(rodata, u64::max)
    };
    let mut normal = Vec::with_capacity(data.len());
    let mut data_order = vec![0; data.len()];
    for key in &order {
        for (index, object) in data
            .iter()
            .enumerate()
            .filter(|(index, d)| section_key(*index, d) == *key)
        {
            data_order[index] = normal.len();
            let mut placed = DataObject {
                align: section_align(key),
                bytes: if object.section.is_bss() {
                    vec![0; object.bytes.len()]
                } else {
                    object.bytes.clone()
                },
                relocations: object.relocations.iter().map(resolve).collect(),
                ..object.clone()
            };
            normal_data_placement(&mut placed);
            normal.push(placed);
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
