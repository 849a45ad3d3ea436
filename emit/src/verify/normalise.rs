//! The normal form of an [`ObjectModel`]: what `read(write(m))` gives back.
//!
//! In: a model as code generation builds it, and the write options.
//! Out: the same model with only those changes that writing and reading
//! make, so a round trip can be compared with `==`.
//!
//! Functions come back in address order (see `order`). Functions, data and
//! their relocations: see `code`. Location
//! expressions: see `location`. The rest of the debug info:
//! - types: base types first (gimli writes them first, where typed
//!   operations can name them), the others after, each group in model
//!   order, every reference renumbered;
//! - files: an empty directory is the compilation directory; a file equal
//!   (name and directory) to an earlier one is that one (with the checksum
//!   given last); checksums are kept only when every file has one; a model with no files gets the unit's
//!   primary file;
//! - a scope's parameters are numbered 1, 2, ... in order; a variable of an
//!   inlined scope matching (by name and line) a variable of its origin has
//!   that variable's type and file;
//! - location lists: entries that are empty are dropped, equal adjacent
//!   ones (after normalising) merged, and a list left empty, or a location
//!   with no operations, is no location;
//! - empty scope ranges are dropped; a function without code has no line
//!   rows; a global variable's data object is renumbered with the data;
//!   a static data member's definition has no position of its own (the
//!   member's declaration, which the model does not place, gives it).

mod code;
mod location;
mod order;

use std::collections::HashMap;

use crate::model::{
    ChildScope, DebugInfo, ImportedEntity, LocationEntry, ObjectModel, Scope, SourceFile,
    Subprogram, TemplateParameter, Type, TypeId, Variable, VariableLocation,
};
use crate::write::WriteOptions;

pub(crate) use location::normal_location;

/// The normal form of `model` written under `options` (see the module
/// comment).
pub fn normalise(model: &ObjectModel, options: &WriteOptions) -> ObjectModel {
    let model = &order::in_address_order(model);
    let code = code::normal_code_and_data(&model.functions, &model.data);
    let debug = model.debug.as_ref().map(|debug| {
        let mut debug = debug.clone();
        for global in &mut debug.globals {
            global.data = global
                .data
                .map(|d| code.data_order.get(d).copied().unwrap_or(d));
        }
        normalise_types(&mut debug);
        normalise_files(&mut debug);
        for (rows, function) in debug.line_rows.iter_mut().zip(&model.functions) {
            if function.code.is_empty() {
                rows.clear();
            }
        }
        let origins: Vec<OriginVariables> =
            debug.subprograms.iter().map(origin_variables).collect();
        for subprogram in &mut debug.subprograms {
            normalise_scope(&mut subprogram.scope, None, &origins, options);
        }
        debug
    });
    // Only referenced weak names get a symbol; the reader lists them sorted.
    let referenced = |name: &String| {
        let named =
            |r: &crate::model::Relocation| r.symbol == crate::model::Symbol::Named(name.clone());
        model
            .functions
            .iter()
            .any(|f| f.relocations.iter().any(named) || f.rodata_relocations.iter().any(named))
            || model.data.iter().any(|d| d.relocations.iter().any(named))
    };
    let mut weak_references: Vec<String> = model
        .weak_references
        .iter()
        .filter(|name| referenced(name))
        .cloned()
        .collect();
    weak_references.sort();
    weak_references.dedup();
    ObjectModel {
        functions: code.functions,
        data: code.data,
        debug,
        weak_references,
        // The reader does not read `.gcc_except_table` back.
        exception_tables: Vec::new(),
    }
}

/// Base types first, the others after in the order of their DIEs (a
/// namespace's or class's types follow it, in the order they were made);
/// references renumbered.
/// The order the writer makes type DIEs in: each type after the scopes it
/// sits in (as `write::types` does).
fn creation_order(types: &[Type]) -> Vec<TypeId> {
    let mut made = vec![false; types.len()];
    let mut order = Vec::with_capacity(types.len());
    for index in 0..types.len() {
        let mut chain = vec![index];
        while let Some(scope) = types[*chain.last().unwrap()].scope() {
            if scope >= types.len() || made[scope] || chain.len() > types.len() {
                break;
            }
            chain.push(scope);
        }
        for &ty in chain.iter().rev() {
            if !made[ty] {
                made[ty] = true;
                order.push(ty);
            }
        }
    }
    order
}

fn normalise_types(debug: &mut DebugInfo) {
    let is_base = |ty: &Type| matches!(ty, Type::Base { .. });
    let mut order: Vec<TypeId> = (0..debug.types.len())
        .filter(|&t| is_base(&debug.types[t]))
        .collect();
    let mut children: HashMap<Option<TypeId>, Vec<TypeId>> = HashMap::new();
    for made in creation_order(&debug.types) {
        if !is_base(&debug.types[made]) {
            children
                .entry(debug.types[made].scope())
                .or_default()
                .push(made);
        }
    }
    let mut pending: Vec<TypeId> = children
        .get(&None)
        .into_iter()
        .flatten()
        .rev()
        .copied()
        .collect();
    while let Some(next) = pending.pop() {
        order.push(next);
        pending.extend(children.get(&Some(next)).into_iter().flatten().rev());
    }
    let mut new_id = vec![0; debug.types.len()];
    for (new, &old) in order.iter().enumerate() {
        new_id[old] = new;
    }
    let map = |id: &mut TypeId| {
        if let Some(&new) = new_id.get(*id) {
            *id = new;
        }
    };
    let map_option = |id: &mut Option<TypeId>| {
        if let Some(id) = id {
            map(id);
        }
    };
    let mut types: Vec<Type> = order.iter().map(|&old| debug.types[old].clone()).collect();
    for ty in &mut types {
        match ty {
            Type::Base { .. } | Type::Unspecified { .. } => {}
            Type::Reference { target, .. } => map_option(target),
            Type::PointerToMember { target, class } => {
                map_option(target);
                map(class);
            }
            Type::Pointer(target)
            | Type::Const(target)
            | Type::Volatile(target)
            | Type::Restrict(target) => map_option(target),
            Type::Typedef { scope, target, .. } => {
                map_option(scope);
                map_option(target);
            }
            Type::Namespace { scope, .. } => map_option(scope),
            Type::Struct {
                scope,
                bases,
                members,
                containing_type,
                template_parameters,
                ..
            } => {
                map_option(scope);
                bases.iter_mut().for_each(|b| map(&mut b.ty));
                members.iter_mut().for_each(|m| map(&mut m.ty));
                map_option(containing_type);
                map_template_parameters(template_parameters, &map_option);
            }
            Type::Array { element, .. } => map(element),
            Type::Enum {
                scope, underlying, ..
            } => {
                map_option(scope);
                map_option(underlying);
            }
            Type::Subroutine {
                return_type,
                parameters,
                ..
            } => {
                map_option(return_type);
                parameters.iter_mut().for_each(map_option);
            }
        }
    }
    debug.types = types;
    for subprogram in &mut debug.subprograms {
        map_option(&mut subprogram.return_type);
        map_option(&mut subprogram.context);
        if let Some(virtuality) = &mut subprogram.traits.virtuality {
            map_option(&mut virtuality.containing_type);
        }
        for parameter in &mut subprogram.parameters {
            map_option(&mut parameter.ty);
        }
        map_template_parameters(&mut subprogram.template_parameters, &map_option);
        visit_variables(&mut subprogram.scope, &mut |v| map_option(&mut v.ty));
    }
    for global in &mut debug.globals {
        map_option(&mut global.ty);
        map_option(&mut global.context);
        if let Some((class, _)) = &mut global.specification {
            map(class);
            // Its position is the member declaration's, which the model
            // does not give.
            global.file = 0;
            global.line = 0;
        }
    }
    for import in &mut debug.imports {
        map_option(&mut import.context);
        if let ImportedEntity::Type(id) = &mut import.entity {
            map(id);
        }
    }
}

/// Renumbers the types template parameters name.
fn map_template_parameters(
    parameters: &mut [TemplateParameter],
    map_option: &dyn Fn(&mut Option<TypeId>),
) {
    for parameter in parameters {
        match parameter {
            TemplateParameter::Type { ty, .. } | TemplateParameter::Value { ty, .. } => {
                map_option(ty)
            }
            TemplateParameter::Template { .. } => {}
            TemplateParameter::Pack { parameters, .. } => {
                map_template_parameters(parameters, map_option)
            }
        }
    }
}

/// Files as the line table keeps them; file numbers renumbered.
fn normalise_files(debug: &mut DebugInfo) {
    if debug.files.is_empty() {
        debug.files.push(SourceFile {
            name: debug.name.clone(),
            directory: debug.comp_dir.clone(),
            md5: None,
        });
    }
    let all_md5 = debug.files.iter().all(|f| f.md5.is_some());
    let mut files: Vec<SourceFile> = Vec::new();
    let mut new_number = Vec::with_capacity(debug.files.len());
    for file in &debug.files {
        let file = SourceFile {
            name: file.name.clone(),
            directory: if file.directory.is_empty() {
                debug.comp_dir.clone()
            } else {
                file.directory.clone()
            },
            md5: if all_md5 { file.md5 } else { None },
        };
        let same = files
            .iter()
            .position(|f| f.name == file.name && f.directory == file.directory);
        new_number.push(match same {
            Some(index) => {
                // gimli keeps one entry per name and directory, with the
                // checksum given last.
                files[index].md5 = file.md5;
                index as u32
            }
            None => {
                files.push(file);
                (files.len() - 1) as u32
            }
        });
    }
    debug.files = files;
    let map = |file: &mut u32| {
        if let Some(&new) = new_number.get(*file as usize) {
            *file = new;
        }
    };
    for subprogram in &mut debug.subprograms {
        map(&mut subprogram.file);
        visit_scopes(&mut subprogram.scope, &mut |scope| {
            for variable in &mut scope.variables {
                map(&mut variable.file);
            }
            for child in &mut scope.children {
                if let ChildScope::Inlined { call_file, .. } = child {
                    map(call_file);
                }
            }
        });
    }
    for row in debug.line_rows.iter_mut().flatten() {
        map(&mut row.file);
    }
    for global in &mut debug.globals {
        map(&mut global.file);
    }
}

/// The variables of a subprogram an inlined copy may refer to, by (name,
/// line): those of its scope and nested lexical blocks, not of calls
/// inlined into it.
fn origin_variables(subprogram: &Subprogram) -> OriginVariables {
    fn collect(scope: &Scope, into: &mut OriginVariables) {
        for variable in &scope.variables {
            into.insert(
                (variable.name.clone(), variable.line),
                (variable.ty, variable.file),
            );
        }
        for child in &scope.children {
            if let ChildScope::Lexical { scope, .. } = child {
                collect(scope, into);
            }
        }
    }
    let mut variables = HashMap::new();
    collect(&subprogram.scope, &mut variables);
    variables
}

/// Type and file of a subprogram's variables, by (name, line).
type OriginVariables = HashMap<(String, u32), (Option<TypeId>, u32)>;

type Origins = [OriginVariables];

fn normalise_scope(
    scope: &mut Scope,
    origin: Option<usize>,
    origins: &Origins,
    options: &WriteOptions,
) {
    let mut parameters = 0;
    for variable in &mut scope.variables {
        if variable.arg.is_some() {
            parameters += 1;
            variable.arg = Some(parameters);
        }
        let from_origin =
            origin.and_then(|o| origins.get(o)?.get(&(variable.name.clone(), variable.line)));
        if let Some(&(ty, file)) = from_origin {
            variable.ty = ty;
            variable.file = file;
        }
        variable.location = normal_variable_location(&variable.location, options);
    }
    for child in &mut scope.children {
        match child {
            ChildScope::Lexical { ranges, scope } => {
                ranges.retain(|(start, end)| start < end);
                normalise_scope(scope, origin, origins, options);
            }
            ChildScope::Inlined {
                origin: inlined,
                ranges,
                scope,
                ..
            } => {
                ranges.retain(|(start, end)| start < end);
                normalise_scope(scope, Some(*inlined), origins, options);
            }
        }
    }
}

fn normal_variable_location(
    location: &VariableLocation,
    options: &WriteOptions,
) -> VariableLocation {
    match location {
        VariableLocation::None => VariableLocation::None,
        VariableLocation::Single(location) => {
            let location = normal_location(location, options);
            if location.ops.is_empty() {
                VariableLocation::None
            } else {
                VariableLocation::Single(location)
            }
        }
        VariableLocation::List { function, entries } => {
            let mut merged: Vec<LocationEntry> = Vec::new();
            for entry in entries.iter().filter(|e| e.start < e.end) {
                let location = normal_location(&entry.location, options);
                if location.ops.is_empty() {
                    continue; // written unavailable: read back as no entry
                }
                match merged.last_mut() {
                    Some(last) if last.end == entry.start && last.location == location => {
                        last.end = entry.end
                    }
                    _ => merged.push(LocationEntry {
                        start: entry.start,
                        end: entry.end,
                        location,
                    }),
                }
            }
            if merged.is_empty() {
                VariableLocation::None
            } else {
                VariableLocation::List {
                    function: *function,
                    entries: merged,
                }
            }
        }
    }
}

fn visit_scopes(scope: &mut Scope, visit: &mut dyn FnMut(&mut Scope)) {
    visit(scope);
    for child in &mut scope.children {
        let (ChildScope::Lexical { scope, .. } | ChildScope::Inlined { scope, .. }) = child;
        visit_scopes(scope, visit);
    }
}

fn visit_variables(scope: &mut Scope, visit: &mut dyn FnMut(&mut Variable)) {
    visit_scopes(scope, &mut |scope| {
        scope.variables.iter_mut().for_each(&mut *visit)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Location, LocationArg, Op};
    use crate::write::DebuggerTune;

    fn register(register: u16, bits: u16, signed: bool) -> LocationArg {
        LocationArg::Register {
            register,
            bits,
            signed,
        }
    }

    fn gdb() -> WriteOptions {
        WriteOptions::default()
    }

    #[test]
    fn arguments_are_renumbered_shared_and_pruned() {
        let location = Location {
            args: vec![
                LocationArg::Constant(7),
                register(3, 32, true),
                LocationArg::FrameSlot(-8),
                register(3, 32, true),
            ],
            ops: vec![
                Op::Arg(3),
                Op::Arg(1),
                Op::Plus,
                Op::Arg(2),
                Op::Plus,
                Op::StackValue,
            ],
        };
        // typed for gdb: the frame address is generic, so it is converted
        let expected = Location {
            args: vec![register(3, 32, true), LocationArg::FrameSlot(-8)],
            ops: vec![
                Op::Arg(0),
                Op::Arg(0),
                Op::Plus,
                Op::Arg(1),
                Op::Convert {
                    bits: 32,
                    signed: true,
                },
                Op::Plus,
                Op::StackValue,
            ],
        };
        assert_eq!(normal_location(&location, &gdb()), expected);
    }

    #[test]
    fn whole_registers_lose_their_type_and_8_byte_loads_are_deref() {
        let location = Location {
            args: vec![register(0, 32, true), register(1, 16, false)],
            ops: vec![
                Op::Arg(0),
                Op::Piece(4),
                Op::Arg(1),
                Op::DerefSize(8),
                Op::Piece(2),
            ],
        };
        let expected = Location {
            args: vec![register(0, 64, false), register(1, 64, false)],
            ops: vec![
                Op::Arg(0),
                Op::Piece(4),
                Op::Arg(1),
                Op::Deref,
                Op::Piece(2),
            ],
        };
        assert_eq!(normal_location(&location, &gdb()), expected);
    }

    #[test]
    fn typed_constants_take_the_type_they_meet() {
        // (u8)r0 - 1 + 2 under gdb: constants converted to 8-bit unsigned
        let location = Location {
            args: vec![register(0, 8, false)],
            ops: vec![
                Op::Arg(0),
                Op::Consts(-1),
                Op::Plus,
                Op::PlusUconst(2),
                Op::StackValue,
            ],
        };
        let expected = Location {
            args: vec![register(0, 8, false)],
            ops: vec![
                Op::Arg(0),
                Op::Consts(-1),
                Op::Convert {
                    bits: 8,
                    signed: false,
                },
                Op::Plus,
                Op::Constu(2),
                Op::Convert {
                    bits: 8,
                    signed: false,
                },
                Op::Plus,
                Op::StackValue,
            ],
        };
        assert_eq!(normal_location(&location, &gdb()), expected);
        let lldb = WriteOptions {
            debugger_tune: DebuggerTune::Lldb,
        };
        let expected = Location {
            args: vec![register(0, 64, false)],
            ops: vec![
                Op::Arg(0),
                Op::Consts(-1),
                Op::Plus,
                Op::PlusUconst(2),
                Op::StackValue,
            ],
        };
        assert_eq!(normal_location(&location, &lldb), expected);
    }

    #[test]
    fn list_entries_merge_and_empty_lists_vanish() {
        let at = |register: u16, bits: u16| Location {
            args: vec![LocationArg::Register {
                register,
                bits,
                signed: false,
            }],
            ops: vec![Op::Arg(0)],
        };
        let entry = |start, end, register, bits| LocationEntry {
            start,
            end,
            location: at(register, bits),
        };
        // (0,4) and (4,9) differ only in a width regN does not keep
        let list = VariableLocation::List {
            function: 1,
            entries: vec![
                entry(0, 4, 5, 32),
                entry(4, 9, 5, 64),
                entry(9, 9, 3, 64),
                entry(9, 12, 5, 64),
                entry(14, 20, 5, 64),
            ],
        };
        assert_eq!(
            normal_variable_location(&list, &gdb()),
            VariableLocation::List {
                function: 1,
                entries: vec![entry(0, 12, 5, 64), entry(14, 20, 5, 64)],
            }
        );
        let empty = VariableLocation::List {
            function: 0,
            entries: vec![entry(3, 3, 1, 64)],
        };
        assert_eq!(
            normal_variable_location(&empty, &gdb()),
            VariableLocation::None
        );
    }
}
