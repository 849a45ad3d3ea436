//! The compile unit: its DIE tree back into [`DebugInfo`].
//!
//! In: the relocated DWARF and the object's functions.
//! Out: the model's `DebugInfo` for the first compile unit.
//!
//! Promises: unit attributes, files and line rows (see `line`), types (see
//! `types`), and one [`Subprogram`] per non-declaration
//! `DW_TAG_subprogram` in DIE order, with its scope tree of variables,
//! lexical blocks and inlined calls. Names, types, files and lines of a DIE
//! with `DW_AT_abstract_origin` / `DW_AT_specification` come from the DIE
//! it names when it has none of its own. A subprogram is concrete when its
//! first address lies in a function. Scope ranges are offsets in the
//! enclosing subprogram's function (ranges elsewhere, and empty ones, are
//! left out). An inlined call whose origin is not a subprogram of the unit
//! is read as a lexical block. Global variables are the unit's (and its
//! namespaces') `DW_TAG_variable` definitions, their data object the one
//! whose first byte a lone `DW_OP_addr` names. Labels and call sites have
//! no place in the model and are skipped.

use std::collections::HashMap;

use gimli::{AttributeValue, Dwarf, Unit};

use super::dwarf::{DieTree, Slice};
use super::elf::ElfObject;
use super::line::{read_line_table, string};
use super::loclists::LocationContext;
use super::op::FrameBase;
use super::types::{read_types, TypeTable};
use super::ReadError;
use crate::model::{ChildScope, DebugInfo, GlobalVariable, Scope, Subprogram, Variable};

/// Reads the first compile unit; `None` when there is none.
pub(crate) fn read_unit(
    dwarf: &Dwarf<Slice<'_>>,
    object: &ElfObject,
    data_addresses: &[u64],
) -> Result<Option<DebugInfo>, ReadError> {
    let error = |e: gimli::Error| ReadError::new(".debug_info", e.to_string());
    let mut headers = dwarf.units();
    let Some(header) = headers.next().map_err(error)? else {
        return Ok(None);
    };
    let unit = dwarf.unit(header).map_err(error)?;
    let tree = DieTree::read(&unit).map_err(error)?;
    if tree.dies.is_empty() {
        return Ok(None);
    }
    let text = |name| -> Result<String, ReadError> {
        match tree.attr(0, name) {
            Some(value) => string(dwarf, &unit, value).map_err(error),
            None => Ok(String::new()),
        }
    };
    let name = text(gimli::DW_AT_name)?;
    let comp_dir = text(gimli::DW_AT_comp_dir)?;
    let producer = text(gimli::DW_AT_producer)?;
    let language = tree
        .number(0, gimli::DW_AT_language)
        .and_then(|v| u16::try_from(v).ok())
        .unwrap_or(0);
    let lines = read_line_table(dwarf, &unit, object, &name, &comp_dir)?;
    let types = read_types(dwarf, &unit, &tree).map_err(error)?;

    let subprogram_dies: Vec<usize> = (0..tree.dies.len())
        .filter(|&die| {
            tree.tag(die) == gimli::DW_TAG_subprogram
                && tree.attr(die, gimli::DW_AT_declaration).is_none()
        })
        .collect();
    let ids: HashMap<usize, usize> = subprogram_dies
        .iter()
        .enumerate()
        .map(|(id, &die)| (die, id))
        .collect();
    let reader = ScopeReader {
        dwarf,
        unit: &unit,
        object,
        tree: &tree,
        types: &types,
        subprograms: &ids,
    };
    let subprograms = subprogram_dies
        .iter()
        .map(|&die| reader.subprogram(die))
        .collect::<Result<Vec<_>, _>>()?;
    let globals = global_dies(&tree)
        .into_iter()
        .map(|die| reader.global(die, data_addresses))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(DebugInfo {
        producer,
        language,
        name,
        comp_dir,
        files: lines.files,
        types: types.types,
        subprograms,
        line_rows: lines.rows,
        globals,
    }))
}

/// The DW_TAG_variable DIEs of the unit's scope (children of the root or
/// of namespaces in it) that are definitions, not declarations.
fn global_dies(tree: &DieTree<'_>) -> Vec<usize> {
    let mut found = Vec::new();
    let mut pending = vec![0];
    while let Some(die) = pending.pop() {
        for &child in &tree.dies[die].children {
            match tree.tag(child) {
                gimli::DW_TAG_variable if tree.attr(child, gimli::DW_AT_declaration).is_none() => {
                    found.push(child)
                }
                gimli::DW_TAG_namespace => pending.push(child),
                _ => {}
            }
        }
    }
    found.sort_unstable();
    found
}

struct ScopeReader<'r, 'a> {
    dwarf: &'r Dwarf<Slice<'a>>,
    unit: &'r Unit<Slice<'a>>,
    object: &'r ElfObject,
    tree: &'r DieTree<'a>,
    types: &'r TypeTable,
    /// Subprogram DIE index → SubprogramId.
    subprograms: &'r HashMap<usize, usize>,
}

/// Where the DIEs of one subprogram are read.
#[derive(Clone, Copy)]
struct Frame {
    function: Option<usize>,
    frame_base: FrameBase,
}

impl ScopeReader<'_, '_> {
    fn error(e: gimli::Error) -> ReadError {
        ReadError::new(".debug_info", e.to_string())
    }

    fn subprogram(&self, die: usize) -> Result<Subprogram, ReadError> {
        let tree = self.tree;
        let ranges = self.address_ranges(die)?;
        let function = ranges
            .first()
            .and_then(|&(start, _)| self.object.function_at(start))
            .map(|(function, _)| function);
        let frame_base = match tree.attr(die, gimli::DW_AT_frame_base) {
            Some(AttributeValue::Exprloc(expression)) => {
                FrameBase::from_expression(expression, self.unit.encoding())
            }
            _ => FrameBase::Unknown,
        };
        let frame = Frame {
            function,
            frame_base,
        };
        Ok(Subprogram {
            name: self.name(die)?,
            linkage_name: self.linkage_name(die)?,
            file: self.udata(die, gimli::DW_AT_decl_file) as u32,
            line: self.udata(die, gimli::DW_AT_decl_line) as u32,
            return_type: self
                .types
                .reference(tree, tree.inherited(die, gimli::DW_AT_type)),
            external: self.flag(die, gimli::DW_AT_external),
            prototyped: self.flag(die, gimli::DW_AT_prototyped),
            function,
            scope: self.scope(die, frame)?,
        })
    }

    fn scope(&self, die: usize, frame: Frame) -> Result<Scope, ReadError> {
        let tree = self.tree;
        let mut scope = Scope::default();
        let mut parameters = 0;
        for &child in &tree.dies[die].children {
            match tree.tag(child) {
                gimli::DW_TAG_formal_parameter => {
                    parameters += 1;
                    scope
                        .variables
                        .push(self.variable(child, Some(parameters), frame)?);
                }
                gimli::DW_TAG_variable => scope.variables.push(self.variable(child, None, frame)?),
                gimli::DW_TAG_lexical_block => scope.children.push(ChildScope::Lexical {
                    ranges: self.scope_ranges(child, frame)?,
                    scope: self.scope(child, frame)?,
                }),
                gimli::DW_TAG_inlined_subroutine => {
                    let ranges = self.scope_ranges(child, frame)?;
                    let inner = self.scope(child, frame)?;
                    let origin = tree
                        .origin(child)
                        .and_then(|origin| self.subprograms.get(&origin));
                    scope.children.push(match origin {
                        Some(&origin) => ChildScope::Inlined {
                            origin,
                            ranges,
                            call_file: self.udata(child, gimli::DW_AT_call_file) as u32,
                            call_line: self.udata(child, gimli::DW_AT_call_line) as u32,
                            call_column: self.udata(child, gimli::DW_AT_call_column) as u32,
                            scope: inner,
                        },
                        None => ChildScope::Lexical {
                            ranges,
                            scope: inner,
                        },
                    });
                }
                _ => {}
            }
        }
        Ok(scope)
    }

    /// A global variable; its data object is the one whose first byte its
    /// `DW_OP_addr` location names.
    fn global(&self, die: usize, data_addresses: &[u64]) -> Result<GlobalVariable, ReadError> {
        let tree = self.tree;
        let data = match tree.attr(die, gimli::DW_AT_location) {
            Some(AttributeValue::Exprloc(expression)) => {
                let mut operations = expression.operations(self.unit.encoding());
                match (operations.next(), operations.next()) {
                    (Ok(Some(gimli::Operation::Address { address })), Ok(None)) => {
                        data_addresses.iter().position(|&a| a == address)
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        Ok(GlobalVariable {
            name: self.name(die)?,
            linkage_name: self.linkage_name(die)?,
            ty: self
                .types
                .reference(tree, tree.inherited(die, gimli::DW_AT_type)),
            file: self.udata(die, gimli::DW_AT_decl_file) as u32,
            line: self.udata(die, gimli::DW_AT_decl_line) as u32,
            external: self.flag(die, gimli::DW_AT_external),
            data,
        })
    }

    fn linkage_name(&self, die: usize) -> Result<Option<String>, ReadError> {
        match self
            .tree
            .inherited(die, gimli::DW_AT_linkage_name)
            .or_else(|| self.tree.inherited(die, gimli::DW_AT_MIPS_linkage_name))
        {
            Some(value) => Ok(Some(
                string(self.dwarf, self.unit, value).map_err(Self::error)?,
            )),
            None => Ok(None),
        }
    }

    fn variable(&self, die: usize, arg: Option<u32>, frame: Frame) -> Result<Variable, ReadError> {
        let tree = self.tree;
        let base_type = |offset| {
            let die = tree.at(offset)?;
            if tree.tag(die) != gimli::DW_TAG_base_type {
                return None;
            }
            let size = tree.attr(die, gimli::DW_AT_byte_size)?.udata_value()?;
            let encoding = u8::try_from(tree.number(die, gimli::DW_AT_encoding)?).ok()?;
            let signed = matches!(
                gimli::DwAte(encoding),
                gimli::DW_ATE_signed | gimli::DW_ATE_signed_char
            );
            Some((u16::try_from(size * 8).ok()?, signed))
        };
        let context = LocationContext {
            dwarf: self.dwarf,
            unit: self.unit,
            object: self.object,
            function: frame.function,
            frame_base: frame.frame_base,
            base_type: &base_type,
        };
        Ok(Variable {
            name: self.name(die)?,
            arg,
            ty: self
                .types
                .reference(tree, tree.inherited(die, gimli::DW_AT_type)),
            file: self.udata(die, gimli::DW_AT_decl_file) as u32,
            line: self.udata(die, gimli::DW_AT_decl_line) as u32,
            location: context.read(
                tree.attr(die, gimli::DW_AT_location),
                tree.attr(die, gimli::DW_AT_const_value),
            )?,
        })
    }

    /// The DIE's address ranges (synthetic addresses), empty ones left out.
    fn address_ranges(&self, die: usize) -> Result<Vec<(u64, u64)>, ReadError> {
        let mut ranges = Vec::new();
        let mut iter = self
            .dwarf
            .die_ranges(self.unit, &self.tree.dies[die].entry)
            .map_err(Self::error)?;
        while let Some(range) = iter.next().map_err(Self::error)? {
            if range.begin < range.end {
                ranges.push((range.begin, range.end));
            }
        }
        Ok(ranges)
    }

    /// The DIE's ranges as offsets in the frame's function.
    fn scope_ranges(&self, die: usize, frame: Frame) -> Result<Vec<(u64, u64)>, ReadError> {
        let Some(function) = frame.function else {
            return Ok(Vec::new());
        };
        let placed = &self.object.functions[function];
        Ok(self
            .address_ranges(die)?
            .into_iter()
            .filter(|&(start, _)| start >= placed.address && start < placed.end())
            .map(|(start, end)| (start - placed.address, end - placed.address))
            .collect())
    }

    fn name(&self, die: usize) -> Result<String, ReadError> {
        match self.tree.inherited(die, gimli::DW_AT_name) {
            Some(value) => string(self.dwarf, self.unit, value).map_err(Self::error),
            None => Ok(String::new()),
        }
    }

    fn udata(&self, die: usize, name: gimli::DwAt) -> u64 {
        self.tree.number(die, name).unwrap_or(0)
    }

    fn flag(&self, die: usize, name: gimli::DwAt) -> bool {
        matches!(
            self.tree.inherited(die, name),
            Some(AttributeValue::Flag(true))
        )
    }
}
