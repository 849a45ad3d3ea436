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
//! whose first byte a lone `DW_OP_addr` (or `DW_OP_addrx`) names; a
//! subprogram's own such variables are its function's statics, read after
//! the unit's, by function. Labels and call sites have no place in the
//! model and are skipped.

use std::collections::{HashMap, HashSet};

use gimli::{AttributeValue, Dwarf, Unit};

use super::dwarf::{DieTree, Slice};
use super::elf::ElfObject;
use super::line::{read_line_table, string};
use super::loclists::LocationContext;
use super::op::FrameBase;
use super::types::{read_types, TypeTable};
use super::ReadError;
use crate::model::{
    CallSite, CallSiteParameter, CallValue, Callee, Calls, ChildScope, DebugInfo, GlobalVariable,
    ParameterType, Scope, Subprogram, Variable,
};

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
    if tree.is_empty() {
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

    // Definitions, and the declarations call sites name as their origin.
    let call_origins: HashSet<usize> = (0..tree.len())
        .filter_map(|die| {
            let origin = match tree.tag(die) {
                gimli::DW_TAG_call_site => DWARF5_CALL_SITE.origin,
                gimli::DW_TAG_GNU_call_site => GNU_CALL_SITE.origin,
                _ => return None,
            };
            tree.reference(tree.attr(die, origin)?)
        })
        .collect();
    let subprogram_dies: Vec<usize> = (0..tree.len())
        .filter(|&die| {
            tree.tag(die) == gimli::DW_TAG_subprogram
                && (tree.attr(die, gimli::DW_AT_declaration).is_none()
                    || call_origins.contains(&die))
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
    // The unit's variables, then functions' statics by function.
    let mut statics: Vec<(usize, usize)> = subprogram_dies
        .iter()
        .enumerate()
        .flat_map(|(id, &die)| tree.children(die).iter().map(move |&child| (id, child)))
        .filter(|&(_, child)| reader.is_function_static(child))
        .collect();
    statics.sort_unstable();
    let globals = global_dies(&tree)
        .into_iter()
        .map(|die| (None, die))
        .chain(statics.into_iter().map(|(id, die)| (Some(id), die)))
        .map(|(function, die)| reader.global(die, function, data_addresses))
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
        imports: Vec::new(),
    }))
}

/// The DW_TAG_variable DIEs of the unit's scope (children of the root or
/// of namespaces in it) that are definitions, not declarations.
fn global_dies(tree: &DieTree<'_>) -> Vec<usize> {
    let mut found = Vec::new();
    let mut pending = vec![0];
    while let Some(die) = pending.pop() {
        for &child in tree.children(die) {
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
        let declaration = function.is_none()
            && matches!(
                tree.attr(die, gimli::DW_AT_declaration),
                Some(AttributeValue::Flag(true))
            );
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
            declaration,
            // A declaration's DW_TAG_formal_parameter children are its
            // parameter types, not variables.
            scope: if declaration {
                Scope::default()
            } else {
                self.scope(die, frame)?
            },
            parameters: if declaration {
                self.parameter_types(die)
            } else {
                Vec::new()
            },
            variadic: tree
                .children(die)
                .iter()
                .any(|&child| tree.tag(child) == gimli::DW_TAG_unspecified_parameters),
            calls: Calls {
                sites: self.call_sites(die, function)?,
                all_described: self.flag(die, gimli::DW_AT_call_all_calls)
                    || self.flag(die, gimli::DW_AT_GNU_all_call_sites),
            },
            abstract_origin: tree
                .attr(die, gimli::DW_AT_abstract_origin)
                .and_then(|origin| tree.reference(origin))
                .and_then(|origin| self.subprograms.get(&origin).copied()),
            ..Subprogram::default()
        })
    }

    /// The types of a declaration's DW_TAG_formal_parameter children.
    fn parameter_types(&self, die: usize) -> Vec<ParameterType> {
        let tree = self.tree;
        tree.children(die)
            .iter()
            .filter(|&&child| tree.tag(child) == gimli::DW_TAG_formal_parameter)
            .map(|&child| ParameterType {
                ty: self
                    .types
                    .reference(tree, tree.attr(child, gimli::DW_AT_type)),
                artificial: self.flag(child, gimli::DW_AT_artificial),
            })
            .collect()
    }

    /// The DW_TAG_call_site children of a subprogram whose code is
    /// `function`: those whose callee and address this model can say;
    /// of their parameters, those whose register and value it can say.
    fn call_sites(&self, die: usize, function: Option<usize>) -> Result<Vec<CallSite>, ReadError> {
        let tree = self.tree;
        let Some(function) = function else {
            return Ok(Vec::new());
        };
        let placed = &self.object.functions[function];
        let mut sites = Vec::new();
        for &child in tree.children(die) {
            let names = match tree.tag(child) {
                gimli::DW_TAG_call_site => &DWARF5_CALL_SITE,
                gimli::DW_TAG_GNU_call_site => &GNU_CALL_SITE,
                _ => continue,
            };
            let tail = self.flag(child, names.tail_call);
            let pc = if tail { names.tail_pc } else { names.return_pc };
            let Some(address) = tree.attr(child, pc) else {
                continue;
            };
            let address = self
                .dwarf
                .attr_address(self.unit, address)
                .map_err(Self::error)?;
            let Some(offset) = address
                .filter(|&a| a >= placed.address && a <= placed.end())
                .map(|a| a - placed.address)
            else {
                continue;
            };
            let callee = match (
                tree.attr(child, names.origin),
                tree.attr(child, names.target),
            ) {
                (Some(origin), _) => tree
                    .reference(origin)
                    .and_then(|origin| self.subprograms.get(&origin))
                    .map(|&id| Callee::Origin(id)),
                (None, Some(AttributeValue::Exprloc(expression))) => {
                    self.lone_register(&expression).map(Callee::Register)
                }
                _ => None,
            };
            let Some(callee) = callee else { continue };
            let parameters = tree
                .children(child)
                .iter()
                .filter(|&&p| tree.tag(p) == names.parameter)
                .filter_map(|&p| {
                    let Some(AttributeValue::Exprloc(location)) =
                        tree.attr(p, gimli::DW_AT_location)
                    else {
                        return None;
                    };
                    let Some(AttributeValue::Exprloc(value)) = tree.attr(p, names.value) else {
                        return None;
                    };
                    Some(CallSiteParameter {
                        register: self.lone_register(&location)?,
                        value: call_value(&value, self.unit.encoding())?,
                    })
                })
                .collect();
            sites.push(CallSite {
                offset,
                tail,
                callee,
                parameters,
            });
        }
        Ok(sites)
    }

    /// The register of an expression that is just `DW_OP_regN`.
    fn lone_register(&self, expression: &gimli::Expression<Slice<'_>>) -> Option<u16> {
        let mut operations = (*expression).operations(self.unit.encoding());
        match (operations.next(), operations.next()) {
            (Ok(Some(gimli::Operation::Register { register })), Ok(None)) => Some(register.0),
            _ => None,
        }
    }

    fn scope(&self, die: usize, frame: Frame) -> Result<Scope, ReadError> {
        let tree = self.tree;
        let mut scope = Scope::default();
        let mut parameters = 0;
        for &child in tree.children(die) {
            match tree.tag(child) {
                gimli::DW_TAG_formal_parameter => {
                    parameters += 1;
                    scope
                        .variables
                        .push(self.variable(child, Some(parameters), frame)?);
                }
                gimli::DW_TAG_variable
                    if tree.tag(die) == gimli::DW_TAG_subprogram
                        && self.is_function_static(child) => {}
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

    /// The address a lone `DW_OP_addr` (or `DW_OP_addrx`) location names.
    fn static_address(&self, die: usize) -> Option<u64> {
        let Some(AttributeValue::Exprloc(expression)) = self.tree.attr(die, gimli::DW_AT_location)
        else {
            return None;
        };
        let mut operations = expression.operations(self.unit.encoding());
        match (operations.next(), operations.next()) {
            (Ok(Some(gimli::Operation::Address { address })), Ok(None)) => Some(address),
            (Ok(Some(gimli::Operation::AddressIndex { index })), Ok(None)) => {
                self.dwarf.address(self.unit, index).ok()
            }
            _ => None,
        }
    }

    /// A function's static: a variable definition directly in a subprogram
    /// whose location is a lone address.
    fn is_function_static(&self, die: usize) -> bool {
        self.tree.tag(die) == gimli::DW_TAG_variable
            && self.tree.attr(die, gimli::DW_AT_declaration).is_none()
            && self.static_address(die).is_some()
    }

    /// A global variable (a function's static when `function` is given);
    /// its data object is the one whose first byte its `DW_OP_addr` (or
    /// `DW_OP_addrx`) location names.
    fn global(
        &self,
        die: usize,
        function: Option<usize>,
        data_addresses: &[u64],
    ) -> Result<GlobalVariable, ReadError> {
        let tree = self.tree;
        let data = self
            .static_address(die)
            .and_then(|address| data_addresses.iter().position(|&a| a == address));
        Ok(GlobalVariable {
            function,
            name: self.name(die)?,
            linkage_name: self.linkage_name(die)?,
            ty: self
                .types
                .reference(tree, tree.inherited(die, gimli::DW_AT_type)),
            file: self.udata(die, gimli::DW_AT_decl_file) as u32,
            line: self.udata(die, gimli::DW_AT_decl_line) as u32,
            external: self.flag(die, gimli::DW_AT_external),
            data,
            context: tree
                .parent(die)
                .filter(|_| function.is_none())
                .and_then(|parent| self.types.id_of(parent)),
            specification: self.static_member(die),
        })
    }

    /// The static data member a global variable's DW_AT_specification
    /// names: its class and its index among the class's members (a DWARF 5
    /// DW_TAG_variable declaration; DWARF 4's DW_TAG_member declarations
    /// are read as ordinary members, so the variable is read as declared
    /// by itself).
    fn static_member(&self, die: usize) -> Option<(usize, usize)> {
        let tree = self.tree;
        let member = tree.reference(tree.attr(die, gimli::DW_AT_specification)?)?;
        if tree.tag(member) != gimli::DW_TAG_variable {
            return None;
        }
        let class = tree.parent(member)?;
        // gcc also completes a namespace's variable declaration this way.
        if !matches!(
            tree.tag(class),
            gimli::DW_TAG_structure_type | gimli::DW_TAG_class_type | gimli::DW_TAG_union_type
        ) {
            return None;
        }
        let index = tree
            .children(class)
            .iter()
            .filter(|&&c| matches!(tree.tag(c), gimli::DW_TAG_member | gimli::DW_TAG_variable))
            .position(|&c| c == member)?;
        Some((self.types.id_of(class)?, index))
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
            artificial: self.flag(die, gimli::DW_AT_artificial),
            object_pointer: false,
        })
    }

    /// The DIE's address ranges (synthetic addresses), empty ones left out.
    fn address_ranges(&self, die: usize) -> Result<Vec<(u64, u64)>, ReadError> {
        let mut ranges = Vec::new();
        let mut iter = self
            .dwarf
            .die_ranges(self.unit, &self.tree.entry(die))
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

/// The names a call site's DIEs and attributes have in one DWARF dialect.
struct CallSiteNames {
    parameter: gimli::DwTag,
    tail_call: gimli::DwAt,
    tail_pc: gimli::DwAt,
    return_pc: gimli::DwAt,
    origin: gimli::DwAt,
    target: gimli::DwAt,
    value: gimli::DwAt,
}

/// DWARF 5's DW_TAG_call_site.
const DWARF5_CALL_SITE: CallSiteNames = CallSiteNames {
    parameter: gimli::DW_TAG_call_site_parameter,
    tail_call: gimli::DW_AT_call_tail_call,
    tail_pc: gimli::DW_AT_call_pc,
    return_pc: gimli::DW_AT_call_return_pc,
    origin: gimli::DW_AT_call_origin,
    target: gimli::DW_AT_call_target,
    value: gimli::DW_AT_call_value,
};

/// The GNU extension DWARF 4 producers write (DW_TAG_GNU_call_site): the
/// return address is DW_AT_low_pc, for tail calls too.
const GNU_CALL_SITE: CallSiteNames = CallSiteNames {
    parameter: gimli::DW_TAG_GNU_call_site_parameter,
    tail_call: gimli::DW_AT_GNU_tail_call,
    tail_pc: gimli::DW_AT_low_pc,
    return_pc: gimli::DW_AT_low_pc,
    origin: gimli::DW_AT_abstract_origin,
    target: gimli::DW_AT_GNU_call_site_target,
    value: gimli::DW_AT_GNU_call_site_value,
};

/// A DW_AT_call_value expression this model can say: a constant, a
/// register (or its zero-extended low half), or an entry value.
fn call_value(
    expression: &gimli::Expression<Slice<'_>>,
    encoding: gimli::Encoding,
) -> Option<CallValue> {
    use gimli::Operation;
    let mut operations = (*expression).operations(encoding);
    let mut all = Vec::new();
    while let Some(operation) = operations.next().ok()? {
        all.push(operation);
    }
    match all.as_slice() {
        [Operation::UnsignedConstant { value }] => Some(CallValue::Constant(*value)),
        [Operation::RegisterOffset {
            register,
            offset: 0,
            ..
        }] => Some(CallValue::Register {
            register: register.0,
            bits: 64,
        }),
        [Operation::RegisterOffset {
            register,
            offset: 0,
            ..
        }, Operation::UnsignedConstant { value: 0xffff_ffff }, Operation::And] => {
            Some(CallValue::Register {
                register: register.0,
                bits: 32,
            })
        }
        [Operation::EntryValue { expression }] => {
            let mut inner = gimli::Expression(*expression).operations(encoding);
            match (inner.next(), inner.next()) {
                (Ok(Some(Operation::Register { register })), Ok(None)) => {
                    Some(CallValue::EntryValue {
                        register: register.0,
                    })
                }
                _ => None,
            }
        }
        _ => None,
    }
}
