//! The compile unit's DIE tree: unit root, types, subprograms, scopes and
//! variables.
//!
//! In: the model's [`DebugInfo`], the code layout and the write options.
//! Out: a `gimli::write::DwarfUnit` ready to be written (DWARF 5, 32-bit
//! format, 8-byte addresses), with its line program, range lists and
//! location lists.
//! Promises:
//! - the unit root has producer, language, name, comp_dir, stmt_list and,
//!   when there is code, low_pc/high_pc over its one code section, or
//!   low_pc 0 and DW_AT_ranges (one start/length per section) when the
//!   code spans several (named sections, COMDAT groups);
//! - children of the root: the model's types in order, then the
//!   subprograms in order, then the global variables (location
//!   `DW_OP_addr` of their data object's symbol, none when optimised out),
//!   then base types made for expressions (gimli moves base types to the
//!   front when it writes);
//! - a concrete subprogram has low_pc/high_pc over its function and
//!   `DW_AT_frame_base` = `DW_OP_call_frame_cfa`; an abstract one (no
//!   function) has `DW_AT_inline` = `DW_INL_inlined`;
//! - parameters (`arg` set) are DW_TAG_formal_parameter, others
//!   DW_TAG_variable; inside an inlined subroutine a variable that matches
//!   one of its origin's variables by name and line refers to it with
//!   `DW_AT_abstract_origin` and carries only its location;
//! - a location list with no entries left after merging gives no
//!   `DW_AT_location`.

use std::collections::HashMap;

use gimli::write::{
    Address, AttributeValue, DwarfUnit, Expression, FileId, Range, RangeList, UnitEntryId,
};
use gimli::{Encoding, Format};

use super::elf::Layout;
use super::relocate::{code_symbol, data_symbol};
use super::types::{accessibility, add_template_parameters, add_types, ExpressionBaseTypes};
use super::{line, loclists, ops, rnglists, WriteError, WriteOptions};
use crate::model::{
    Callee, ChildScope, DebugInfo, GlobalVariable, ImportedEntity, Location, ObjectModel, Scope,
    Subprogram, SubprogramId, Variable, VariableLocation,
};

/// The DIE of type `id` as an attribute value.
fn type_reference(
    types: &[UnitEntryId],
    id: usize,
    what: &str,
) -> Result<AttributeValue, WriteError> {
    types
        .get(id)
        .map(|&die| AttributeValue::UnitRef(die))
        .ok_or_else(|| WriteError::new(format!("{what} refers to type {id}, which does not exist")))
}

/// Builds the compile unit for `debug`.
pub fn build_unit(
    model: &ObjectModel,
    debug: &DebugInfo,
    layout: &Layout,
    options: &WriteOptions,
) -> Result<DwarfUnit, WriteError> {
    let encoding = Encoding {
        format: Format::Dwarf32,
        version: 5,
        address_size: 8,
    };
    let mut dwarf = DwarfUnit::new(encoding);
    let (program, files) =
        line::line_program(model, debug, layout, encoding, &mut dwarf.line_strings)?;
    dwarf.unit.line_program = program;
    let type_dies = add_types(&mut dwarf.unit, &mut dwarf.strings, &debug.types)?;
    let mut builder = UnitBuilder {
        model,
        debug,
        layout,
        options,
        dwarf,
        files,
        types: type_dies.ids,
        static_members: type_dies.static_members,
        base_types: HashMap::new(),
        subprograms: Vec::new(),
        origin_variables: Vec::new(),
    };
    builder.add_root_attributes();
    builder.add_subprograms()?;
    let globals = builder.add_globals()?;
    builder.add_imports(&globals)?;
    Ok(builder.dwarf)
}

/// The unit under construction and the DIE ids handed out so far.
struct UnitBuilder<'a> {
    model: &'a ObjectModel,
    debug: &'a DebugInfo,
    layout: &'a Layout,
    options: &'a WriteOptions,
    dwarf: DwarfUnit,
    /// Line-table file of each model file.
    files: Vec<FileId>,
    /// DIE of each model type.
    types: Vec<UnitEntryId>,
    /// Declaration DIE of each static data member, by (class, member index).
    static_members: HashMap<(usize, usize), UnitEntryId>,
    /// Base types made for expressions, by (bits, signed).
    base_types: HashMap<(u16, bool), UnitEntryId>,
    /// DIE of each subprogram.
    subprograms: Vec<UnitEntryId>,
    /// Variable DIEs of each subprogram built so far, by (name, line), for
    /// the abstract origins of inlined variables.
    origin_variables: Vec<HashMap<(String, u32), UnitEntryId>>,
}

impl UnitBuilder<'_> {
    fn string(&mut self, text: &str) -> AttributeValue {
        AttributeValue::StringRef(self.dwarf.strings.add(text))
    }

    fn set(&mut self, die: UnitEntryId, name: gimli::DwAt, value: AttributeValue) {
        self.dwarf.unit.get_mut(die).set(name, value);
    }

    fn add_root_attributes(&mut self) {
        let root = self.dwarf.unit.root();
        let producer = self.string(&self.debug.producer);
        self.set(root, gimli::DW_AT_producer, producer);
        self.set(
            root,
            gimli::DW_AT_language,
            AttributeValue::Language(gimli::DwLang(self.debug.language)),
        );
        let name = self.string(&self.debug.name);
        self.set(root, gimli::DW_AT_name, name);
        let comp_dir = self.string(&self.debug.comp_dir);
        self.set(root, gimli::DW_AT_comp_dir, comp_dir);
        let with_code: Vec<(usize, u64)> = (self.layout.code_sections.iter())
            .map(|section| section.size)
            .enumerate()
            .filter(|&(_, size)| size > 0)
            .collect();
        let start = |section: usize| Address::Symbol {
            symbol: code_symbol(section),
            addend: 0,
        };
        match with_code[..] {
            [] => {}
            [(section, size)] => {
                let low_pc = AttributeValue::Address(start(section));
                self.set(root, gimli::DW_AT_low_pc, low_pc);
                self.set(root, gimli::DW_AT_high_pc, AttributeValue::Udata(size));
            }
            _ => {
                // Code in several sections: low_pc 0 and a range per
                // section, as llc describes such a unit.
                let list = with_code
                    .iter()
                    .map(|&(section, length)| Range::StartLength {
                        begin: start(section),
                        length,
                    })
                    .collect();
                let ranges = self.dwarf.unit.ranges.add(RangeList(list));
                let low_pc = AttributeValue::Address(Address::Constant(0));
                self.set(root, gimli::DW_AT_low_pc, low_pc);
                self.set(
                    root,
                    gimli::DW_AT_ranges,
                    AttributeValue::RangeListRef(ranges),
                );
            }
        }
    }

    fn file(&self, index: u32, what: &str) -> Result<AttributeValue, WriteError> {
        self.files
            .get(index as usize)
            .map(|&file| AttributeValue::FileIndex(Some(file)))
            .ok_or_else(|| {
                WriteError::new(format!("{what} names file {index}, which does not exist"))
            })
    }

    fn type_ref(&self, id: usize, what: &str) -> Result<AttributeValue, WriteError> {
        type_reference(&self.types, id, what)
    }

    /// Address and code length of function `index`.
    fn function_extent(&self, index: usize, what: &str) -> Result<(Address, u64), WriteError> {
        match self.model.functions.get(index) {
            Some(function) => Ok((self.layout.address(index, 0), function.code.len() as u64)),
            None => Err(WriteError::new(format!(
                "{what} refers to function {index}, which does not exist"
            ))),
        }
    }

    fn add_subprograms(&mut self) -> Result<(), WriteError> {
        let root = self.dwarf.unit.root();
        for subprogram in &self.debug.subprograms {
            let parent = match subprogram.context {
                Some(context) => match self.types.get(context) {
                    Some(&die) => die,
                    None => {
                        return Err(WriteError::new(format!(
                            "subprogram `{}` sits in type {context}, which does not exist",
                            subprogram.name
                        )))
                    }
                },
                None => root,
            };
            let die = self.dwarf.unit.add(parent, gimli::DW_TAG_subprogram);
            self.subprograms.push(die);
            self.origin_variables.push(HashMap::new());
        }
        // Abstract subprograms first, so that inlined variables can find
        // their origins whatever the order of the model.
        let debug = self.debug;
        let (abstract_ones, concrete_ones): (Vec<_>, Vec<_>) = (0..debug.subprograms.len())
            .partition(|&index| debug.subprograms[index].function.is_none());
        for index in abstract_ones.into_iter().chain(concrete_ones) {
            self.fill_subprogram(index)?;
        }
        Ok(())
    }

    fn fill_subprogram(&mut self, index: SubprogramId) -> Result<(), WriteError> {
        let subprogram = &self.debug.subprograms[index];
        let die = self.subprograms[index];
        let what = format!("subprogram `{}`", subprogram.name);
        if let Some(function) = subprogram.function {
            let (start, len) = self.function_extent(function, &what)?;
            self.set(die, gimli::DW_AT_low_pc, AttributeValue::Address(start));
            self.set(die, gimli::DW_AT_high_pc, AttributeValue::Udata(len));
            let mut frame_base = Expression::new();
            frame_base.op(gimli::DW_OP_call_frame_cfa);
            self.set(
                die,
                gimli::DW_AT_frame_base,
                AttributeValue::Exprloc(frame_base),
            );
        }
        match (subprogram.abstract_origin, subprogram.specification) {
            (Some(origin), _) => {
                let Some(&origin) = self.subprograms.get(origin) else {
                    return Err(WriteError::new(format!(
                        "{what} has origin {origin}, which does not exist"
                    )));
                };
                self.set(
                    die,
                    gimli::DW_AT_abstract_origin,
                    AttributeValue::UnitRef(origin),
                );
            }
            (None, Some(declaration)) => {
                self.add_specification(die, subprogram, declaration, &what)?
            }
            (None, None) => self.add_declared_attributes(die, subprogram, &what)?,
        }
        if subprogram.function.is_none() && !subprogram.declaration {
            self.set(
                die,
                gimli::DW_AT_inline,
                AttributeValue::Inline(gimli::DW_INL_inlined),
            );
        }
        if subprogram.calls.all_described {
            self.set(
                die,
                gimli::DW_AT_call_all_calls,
                AttributeValue::FlagPresent,
            );
        }
        let mut variables = HashMap::new();
        self.add_scope(
            die,
            &subprogram.scope,
            subprogram.function,
            subprogram.abstract_origin,
            &mut variables,
            &what,
        )?;
        self.origin_variables[index] = variables;
        if let Some(this) = subprogram.scope.variables.iter().find(|v| v.object_pointer) {
            let this = self.origin_variables[index][&(this.name.clone(), this.line)];
            self.set(
                die,
                gimli::DW_AT_object_pointer,
                AttributeValue::UnitRef(this),
            );
        }
        if subprogram.variadic {
            self.dwarf
                .unit
                .add(die, gimli::DW_TAG_unspecified_parameters);
        }
        let types = &self.types;
        add_template_parameters(
            &mut self.dwarf.unit,
            &mut self.dwarf.strings,
            die,
            &subprogram.template_parameters,
            &|id| type_reference(types, id, &what),
        )?;
        self.add_call_sites(die, subprogram, &what)
    }

    /// The attributes of a definition or abstract origin whose declaration
    /// is `declaration`: what differs from it, its linkage name when the
    /// declaration has none, and DW_AT_specification (LLVM's
    /// applySubprogramDefinitionAttributes).
    fn add_specification(
        &mut self,
        die: UnitEntryId,
        subprogram: &Subprogram,
        declaration: SubprogramId,
        what: &str,
    ) -> Result<(), WriteError> {
        let (Some(declared), Some(&declaration_die)) = (
            self.debug.subprograms.get(declaration),
            self.subprograms.get(declaration),
        ) else {
            return Err(WriteError::new(format!(
                "{what} completes subprogram {declaration}, which does not exist"
            )));
        };
        if subprogram.file != declared.file {
            let file = self.file(subprogram.file, what)?;
            self.set(die, gimli::DW_AT_decl_file, file);
        }
        if subprogram.line != declared.line {
            self.set(
                die,
                gimli::DW_AT_decl_line,
                AttributeValue::Udata(subprogram.line.into()),
            );
        }
        if let Some(return_type) = subprogram.return_type {
            if declared.return_type != Some(return_type) {
                let return_type = self.type_ref(return_type, what)?;
                self.set(die, gimli::DW_AT_type, return_type);
            }
        }
        if let (Some(linkage_name), None) = (&subprogram.linkage_name, &declared.linkage_name) {
            let linkage_name = self.string(linkage_name);
            self.set(die, gimli::DW_AT_linkage_name, linkage_name);
        }
        self.set(
            die,
            gimli::DW_AT_specification,
            AttributeValue::UnitRef(declaration_die),
        );
        Ok(())
    }

    /// The attributes of a subprogram that completes no declaration (LLVM's
    /// applySubprogramAttributes): names, position, type, C++ traits, and
    /// for a declaration its parameter types.
    fn add_declared_attributes(
        &mut self,
        die: UnitEntryId,
        subprogram: &Subprogram,
        what: &str,
    ) -> Result<(), WriteError> {
        if let Some(linkage_name) = &subprogram.linkage_name {
            let linkage_name = self.string(linkage_name);
            self.set(die, gimli::DW_AT_linkage_name, linkage_name);
        }
        // Constructors of anonymous classes have no name.
        if !subprogram.name.is_empty() {
            let name = self.string(&subprogram.name);
            self.set(die, gimli::DW_AT_name, name);
        }
        // A subprogram without a line (an implicit member, a declaration
        // made only from a symbol name) has no source position.
        if subprogram.line != 0 {
            let file = self.file(subprogram.file, what)?;
            self.set(die, gimli::DW_AT_decl_file, file);
            self.set(
                die,
                gimli::DW_AT_decl_line,
                AttributeValue::Udata(subprogram.line.into()),
            );
        }
        if subprogram.prototyped {
            self.set(die, gimli::DW_AT_prototyped, AttributeValue::FlagPresent);
        }
        if let Some(return_type) = subprogram.return_type {
            let return_type = self.type_ref(return_type, what)?;
            self.set(die, gimli::DW_AT_type, return_type);
        }
        let traits = subprogram.traits;
        if let Some(virtuality) = traits.virtuality {
            let kind = if virtuality.pure {
                gimli::DW_VIRTUALITY_pure_virtual
            } else {
                gimli::DW_VIRTUALITY_virtual
            };
            self.set(
                die,
                gimli::DW_AT_virtuality,
                AttributeValue::Virtuality(kind),
            );
            if let Some(index) = virtuality.vtable_index {
                // LLVM's `DW_OP_constu N` even where a literal would do.
                let mut bytes = vec![gimli::DW_OP_constu.0];
                gimli::leb128::write::unsigned(&mut bytes, index).expect("a Vec takes every byte");
                self.set(
                    die,
                    gimli::DW_AT_vtable_elem_location,
                    AttributeValue::Exprloc(Expression::raw(bytes)),
                );
            }
        }
        if subprogram.declaration {
            self.set(die, gimli::DW_AT_declaration, AttributeValue::FlagPresent);
            for parameter in &subprogram.parameters {
                let child = self.dwarf.unit.add(die, gimli::DW_TAG_formal_parameter);
                if let Some(ty) = parameter.ty {
                    let ty = self.type_ref(ty, what)?;
                    self.set(child, gimli::DW_AT_type, ty);
                }
                if parameter.artificial {
                    self.set(child, gimli::DW_AT_artificial, AttributeValue::FlagPresent);
                }
            }
        }
        for (set, name) in [
            (traits.artificial, gimli::DW_AT_artificial),
            (subprogram.external, gimli::DW_AT_external),
        ] {
            if set {
                self.set(die, name, AttributeValue::FlagPresent);
            }
        }
        if let Some(access) = traits.access {
            self.set(die, gimli::DW_AT_accessibility, accessibility(access));
        }
        for (set, name) in [
            (traits.explicit, gimli::DW_AT_explicit),
            (traits.noreturn, gimli::DW_AT_noreturn),
            (traits.deleted, gimli::DW_AT_deleted),
        ] {
            if set {
                self.set(die, name, AttributeValue::FlagPresent);
            }
        }
        if let Some(containing_type) = traits.virtuality.and_then(|v| v.containing_type) {
            let containing_type = self.type_ref(containing_type, what)?;
            self.set(die, gimli::DW_AT_containing_type, containing_type);
        }
        Ok(())
    }

    /// Adds a DW_TAG_call_site child of `die` for each of the subprogram's
    /// call sites, with its parameters.
    fn add_call_sites(
        &mut self,
        die: UnitEntryId,
        subprogram: &Subprogram,
        what: &str,
    ) -> Result<(), WriteError> {
        if subprogram.calls.sites.is_empty() {
            return Ok(());
        }
        let Some(function) = subprogram.function else {
            return Err(WriteError::new(format!(
                "{what} has call sites but no code"
            )));
        };
        let (_, len) = self.function_extent(function, what)?;
        for site in &subprogram.calls.sites {
            if site.offset > len {
                return Err(WriteError::new(format!(
                    "{what}: a call site at offset {:#x} is past the function's end {len:#x}",
                    site.offset
                )));
            }
            let call = self.dwarf.unit.add(die, gimli::DW_TAG_call_site);
            match site.callee {
                Callee::Origin(origin) => {
                    let Some(&origin) = self.subprograms.get(origin) else {
                        return Err(WriteError::new(format!(
                            "{what}: a call site's origin {origin} does not exist"
                        )));
                    };
                    self.set(
                        call,
                        gimli::DW_AT_call_origin,
                        AttributeValue::UnitRef(origin),
                    );
                }
                Callee::Register(register) => {
                    let mut target = Expression::new();
                    target.op_reg(gimli::Register(register));
                    self.set(
                        call,
                        gimli::DW_AT_call_target,
                        AttributeValue::Exprloc(target),
                    );
                }
            }
            let address = AttributeValue::Address(self.layout.address(function, site.offset));
            if site.tail {
                self.set(
                    call,
                    gimli::DW_AT_call_tail_call,
                    AttributeValue::FlagPresent,
                );
                self.set(call, gimli::DW_AT_call_pc, address);
            } else {
                self.set(call, gimli::DW_AT_call_return_pc, address);
            }
            for parameter in &site.parameters {
                let die = self.dwarf.unit.add(call, gimli::DW_TAG_call_site_parameter);
                let mut location = Expression::new();
                location.op_reg(gimli::Register(parameter.register));
                self.set(
                    die,
                    gimli::DW_AT_location,
                    AttributeValue::Exprloc(location),
                );
                let value = ops::call_value(&parameter.value);
                self.set(die, gimli::DW_AT_call_value, AttributeValue::Exprloc(value));
            }
        }
        Ok(())
    }

    /// Adds the variables and child scopes of `scope` under `parent`.
    /// `function` gives the code the scope's ranges are in; `origin` is the
    /// abstract origin when the scope is (inside) an inlined subroutine.
    fn add_scope(
        &mut self,
        parent: UnitEntryId,
        scope: &Scope,
        function: Option<usize>,
        origin: Option<SubprogramId>,
        variables: &mut HashMap<(String, u32), UnitEntryId>,
        what: &str,
    ) -> Result<(), WriteError> {
        for variable in &scope.variables {
            let die = self.add_variable(parent, variable, origin, what)?;
            variables.insert((variable.name.clone(), variable.line), die);
        }
        for child in &scope.children {
            match child {
                ChildScope::Lexical { ranges, scope } => {
                    let die = self.dwarf.unit.add(parent, gimli::DW_TAG_lexical_block);
                    let what = format!("{what} lexical block");
                    self.set_ranges(die, ranges, function, &what)?;
                    self.add_scope(die, scope, function, origin, variables, &what)?;
                }
                ChildScope::Inlined {
                    origin: inlined,
                    ranges,
                    call_file,
                    call_line,
                    call_column,
                    scope,
                } => {
                    let what = format!("{what} inlined call");
                    let Some(&origin_die) = self.subprograms.get(*inlined) else {
                        return Err(WriteError::new(format!(
                            "{what} has origin {inlined}, which does not exist"
                        )));
                    };
                    let die = self
                        .dwarf
                        .unit
                        .add(parent, gimli::DW_TAG_inlined_subroutine);
                    self.set(
                        die,
                        gimli::DW_AT_abstract_origin,
                        AttributeValue::UnitRef(origin_die),
                    );
                    self.set_ranges(die, ranges, function, &what)?;
                    let file = self.file(*call_file, &what)?;
                    self.set(die, gimli::DW_AT_call_file, file);
                    self.set(
                        die,
                        gimli::DW_AT_call_line,
                        AttributeValue::Udata((*call_line).into()),
                    );
                    self.set(
                        die,
                        gimli::DW_AT_call_column,
                        AttributeValue::Udata((*call_column).into()),
                    );
                    self.add_scope(
                        die,
                        scope,
                        function,
                        Some(*inlined),
                        &mut HashMap::new(),
                        &what,
                    )?;
                }
            }
        }
        Ok(())
    }

    fn set_ranges(
        &mut self,
        die: UnitEntryId,
        ranges: &[(u64, u64)],
        function: Option<usize>,
        what: &str,
    ) -> Result<(), WriteError> {
        if ranges.is_empty() {
            return Ok(());
        }
        let Some(function) = function else {
            return Err(WriteError::new(format!(
                "{what} has address ranges but its subprogram has no code"
            )));
        };
        let (start, len) = self.function_extent(function, what)?;
        let attributes =
            rnglists::range_attributes(ranges, start, len, &mut self.dwarf.unit.ranges, what)?;
        for (name, value) in attributes {
            self.set(die, name, value);
        }
        Ok(())
    }

    fn add_variable(
        &mut self,
        parent: UnitEntryId,
        variable: &Variable,
        origin: Option<SubprogramId>,
        what: &str,
    ) -> Result<UnitEntryId, WriteError> {
        let tag = if variable.arg.is_some() {
            gimli::DW_TAG_formal_parameter
        } else {
            gimli::DW_TAG_variable
        };
        let die = self.dwarf.unit.add(parent, tag);
        let what = format!("{what} variable `{}`", variable.name);
        let origin_variable = origin.and_then(|origin| {
            self.origin_variables[origin]
                .get(&(variable.name.clone(), variable.line))
                .copied()
        });
        match origin_variable {
            Some(origin_variable) => self.set(
                die,
                gimli::DW_AT_abstract_origin,
                AttributeValue::UnitRef(origin_variable),
            ),
            None => {
                // An unnamed parameter has no name.
                if !variable.name.is_empty() {
                    let name = self.string(&variable.name);
                    self.set(die, gimli::DW_AT_name, name);
                }
                let file = self.file(variable.file, &what)?;
                self.set(die, gimli::DW_AT_decl_file, file);
                self.set(
                    die,
                    gimli::DW_AT_decl_line,
                    AttributeValue::Udata(variable.line.into()),
                );
                if let Some(ty) = variable.ty {
                    let ty = self.type_ref(ty, &what)?;
                    self.set(die, gimli::DW_AT_type, ty);
                }
                if variable.artificial {
                    self.set(die, gimli::DW_AT_artificial, AttributeValue::FlagPresent);
                }
            }
        }
        match &variable.location {
            VariableLocation::None => {}
            VariableLocation::Single(location) => {
                let expression = self.lower(location, &what)?;
                self.set(
                    die,
                    gimli::DW_AT_location,
                    AttributeValue::Exprloc(expression),
                );
            }
            VariableLocation::List { function, entries } => {
                let (start, len) = self.function_extent(*function, &what)?;
                let list = loclists::location_list(
                    entries,
                    start,
                    len,
                    &mut |location| self.lower(location, &what),
                    &what,
                )?;
                if let Some(list) = list {
                    let list = self.dwarf.unit.locations.add(list);
                    self.set(
                        die,
                        gimli::DW_AT_location,
                        AttributeValue::LocationListRef(list),
                    );
                }
            }
        }
        Ok(die)
    }

    /// The imports, each in its namespace's DIE or the unit's.
    fn add_imports(&mut self, globals: &[UnitEntryId]) -> Result<(), WriteError> {
        let root = self.dwarf.unit.root();
        let mut dies = Vec::with_capacity(self.debug.imports.len());
        for import in &self.debug.imports {
            let parent = match import.context {
                Some(context) => self.type_ref(context, "an import")?,
                None => AttributeValue::UnitRef(root),
            };
            let AttributeValue::UnitRef(parent) = parent else {
                unreachable!("type references are unit references")
            };
            let tag = if import.module {
                gimli::DW_TAG_imported_module
            } else {
                gimli::DW_TAG_imported_declaration
            };
            dies.push(self.dwarf.unit.add(parent, tag));
        }
        for (import, &die) in self.debug.imports.iter().zip(&dies) {
            let what = format!("import at line {}", import.line);
            if import.line != 0 {
                let file = self.file(import.file, &what)?;
                self.set(die, gimli::DW_AT_decl_file, file);
                self.set(
                    die,
                    gimli::DW_AT_decl_line,
                    AttributeValue::Udata(import.line.into()),
                );
            }
            let entity = match import.entity {
                ImportedEntity::Type(id) => Some(self.type_ref(id, &what)?),
                ImportedEntity::Subprogram(id) => self
                    .subprograms
                    .get(id)
                    .map(|&d| AttributeValue::UnitRef(d)),
                ImportedEntity::Global(id) => globals.get(id).map(|&d| AttributeValue::UnitRef(d)),
                ImportedEntity::Import(id) => dies.get(id).map(|&d| AttributeValue::UnitRef(d)),
            };
            let Some(entity) = entity else {
                return Err(WriteError::new(format!(
                    "{what} imports {:?}, which does not exist",
                    import.entity
                )));
            };
            self.set(die, gimli::DW_AT_import, entity);
            if let Some(name) = &import.name {
                let name = self.string(name);
                self.set(die, gimli::DW_AT_name, name);
            }
        }
        Ok(())
    }

    /// A global variable's own name, type, DW_AT_external and position.
    fn add_global_declaration(
        &mut self,
        die: UnitEntryId,
        global: &GlobalVariable,
        what: &str,
    ) -> Result<(), WriteError> {
        // A string literal's variable has no name.
        if !global.name.is_empty() {
            let name = self.string(&global.name);
            self.set(die, gimli::DW_AT_name, name);
        }
        if let Some(ty) = global.ty {
            let ty = self.type_ref(ty, what)?;
            self.set(die, gimli::DW_AT_type, ty);
        }
        if global.external {
            self.set(die, gimli::DW_AT_external, AttributeValue::FlagPresent);
        }
        let file = self.file(global.file, what)?;
        self.set(die, gimli::DW_AT_decl_file, file);
        self.set(
            die,
            gimli::DW_AT_decl_line,
            AttributeValue::Udata(global.line.into()),
        );
        Ok(())
    }

    /// The global variables' DIEs, in their namespace's or the unit's, in
    /// model order.
    fn add_globals(&mut self) -> Result<Vec<UnitEntryId>, WriteError> {
        let root = self.dwarf.unit.root();
        let mut dies = Vec::with_capacity(self.debug.globals.len());
        for global in &self.debug.globals {
            let what = format!("global variable `{}`", global.name);
            let parent = match (global.function, global.context) {
                (Some(function), _) => match self.subprograms.get(function) {
                    Some(&die) => die,
                    None => {
                        return Err(WriteError::new(format!(
                            "{what} sits in subprogram {function}, which does not exist"
                        )))
                    }
                },
                (None, Some(context)) => match self.types.get(context) {
                    Some(&die) => die,
                    None => {
                        return Err(WriteError::new(format!(
                            "{what} sits in type {context}, which does not exist"
                        )))
                    }
                },
                (None, None) => root,
            };
            let die = self.dwarf.unit.add(parent, gimli::DW_TAG_variable);
            dies.push(die);
            match global.specification {
                Some(member) => {
                    let Some(&declaration) = self.static_members.get(&member) else {
                        return Err(WriteError::new(format!(
                            "{what} defines member {member:?}, which is no static member"
                        )));
                    };
                    self.set(
                        die,
                        gimli::DW_AT_specification,
                        AttributeValue::UnitRef(declaration),
                    );
                }
                None => self.add_global_declaration(die, global, &what)?,
            }
            if let Some(linkage_name) = &global.linkage_name {
                let linkage_name = self.string(linkage_name);
                self.set(die, gimli::DW_AT_linkage_name, linkage_name);
            }
            if let Some(data) = global.data {
                if data >= self.model.data.len() {
                    return Err(WriteError::new(format!(
                        "{what} lives in data object {data}, which does not exist"
                    )));
                }
                let mut location = Expression::new();
                location.op_addr(Address::Symbol {
                    symbol: data_symbol(data),
                    addend: 0,
                });
                // A thread-local variable: its offset in the module's TLS
                // block, then the debugger adds the thread's block address
                // (as clang does: the GNU opcode when tuning for gdb). The
                // ELF writer turns this DW_OP_addr into DW_OP_const8u with
                // an R_X86_64_DTPOFF64 relocation.
                if self.model.data[data].section.is_thread_local() {
                    location.op(match self.options.debugger_tune {
                        super::DebuggerTune::Gdb => gimli::DW_OP_GNU_push_tls_address,
                        super::DebuggerTune::Lldb => gimli::DW_OP_form_tls_address,
                    });
                }
                self.set(
                    die,
                    gimli::DW_AT_location,
                    AttributeValue::Exprloc(location),
                );
            }
        }
        Ok(dies)
    }

    fn lower(&mut self, location: &Location, what: &str) -> Result<Expression, WriteError> {
        let mut base_types = ExpressionBaseTypes {
            unit: &mut self.dwarf.unit,
            strings: &mut self.dwarf.strings,
            made: &mut self.base_types,
        };
        ops::lower(location, self.options.debugger_tune, &mut base_types)
            .map_err(|message| WriteError::new(format!("{what}: {message}")))
    }
}
