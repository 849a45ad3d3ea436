//! The DWARF description of a compiled module, in the emit crate's terms.
//!
//! In: the IR module (its compile unit, files, subprograms, scopes, variables
//! and types) and, per compiled function, where each machine instruction came
//! from and the variable ranges the history calculator produced.
//! Out: an [`emit::DebugInfo`].
//! Promises:
//! - a function's scopes are the ones its instructions came from (a scope
//!   with no instruction left gets no DIE, as in LLVM), each with the byte
//!   ranges of its instructions; inlined calls become inlined subroutines
//!   whose abstract origin is an out-of-line subprogram DIE without code;
//! - each variable is placed in its own scope, parameters first in argument
//!   order; a variable the function retains, or one with debug records
//!   (inlined copies too) whose every location was lost, has no range but
//!   is still described, without `DW_AT_location` (gdb then says
//!   `<optimized out>`, never `No symbol`);
//! - a location is clipped to its scope's ranges (see [`super::locations`]);
//! - a function whose subprogram has `DIFlagAllCallsDescribed` lists its
//!   calls as call sites (DW_TAG_call_site, under its DIE as in LLVM) whose
//!   origin is the callee's concrete DIE or a declaration DIE made from the
//!   callee's `!dbg` subprogram, with the parameters
//!   [`crate::codegen::call_sites`] could recover.

use std::collections::hash_map::Entry;

use crate::ir::hash::FxHashMap;

use dwarfsmith_emit::model as emit;

use super::locations::{describe, Fragment, LocationRange};
use super::scopes::{NodeId, ScopeTree};
use super::types::{field_node, tuple_nodes, TypeTable};
use crate::codegen::call_sites::{CallValue, Callee};
use crate::codegen::FunctionDebug;
use crate::ir::debug::{DILocalVariable, MdField, MdNode};
use crate::ir::{DebugInfo, Function, LocId, MdId, MdOperand, MdRef, Module, RecordKind};

/// One level of a scope path: a scope, and the inlined call it is in.
type ScopeKey = (MdId, Option<LocId>);

/// Builds the module's DWARF description; `functions[n]` describes the
/// object's function `n`, and `data` is the object's data objects (where
/// global variables live).
pub fn build(
    module: &Module,
    functions: &[FunctionDebug],
    data: &[emit::DataObject],
) -> emit::DebugInfo {
    let debug = &module.debug;
    let unit_language = module
        .compile_units()
        .first()
        .and_then(|&cu| match debug.node(cu) {
            MdNode::CompileUnit(unit) => Some(language(&unit.language)),
            _ => None,
        })
        .unwrap_or(0x1d);
    let mut builder = Builder {
        debug,
        types: TypeTable::new(debug, is_c(unit_language)),
        abstract_origins: FxHashMap::default(),
        inlined_variables: FxHashMap::default(),
        declarations: FxHashMap::default(),
    };
    let mut info = emit::DebugInfo {
        producer: String::new(),
        language: 0x1d,
        name: String::new(),
        comp_dir: String::new(),
        files: Vec::new(),
        types: Vec::new(),
        subprograms: Vec::new(),
        line_rows: Vec::new(),
        globals: Vec::new(),
        imports: Vec::new(),
    };
    if let Some(&cu) = module.compile_units().first() {
        if let MdNode::CompileUnit(unit) = debug.node(cu) {
            info.producer = unit.producer.clone().unwrap_or_default();
            info.language = language(&unit.language);
            if let Some(file) = unit.file.and_then(|f| debug.file(f)) {
                info.name = file.filename.clone();
                info.comp_dir = file.directory.clone();
            }
            builder.file(unit.file);
            // The unit's enumerations and retained types are described
            // whether or not anything refers to them, as LLVM's
            // DwarfDebug::beginModule does.
            for list in [unit.enums, unit.retained_types] {
                for node in tuple_nodes(debug, list) {
                    if matches!(
                        debug.node(node),
                        MdNode::BasicType(_)
                            | MdNode::DerivedType(_)
                            | MdNode::CompositeType(_)
                            | MdNode::SubroutineType(_)
                    ) {
                        builder.types.type_of(Some(node));
                    }
                }
            }
        }
    }
    // Per object function with a concrete DIE: that DIE.
    let mut concrete: Vec<Option<emit::SubprogramId>> = vec![None; functions.len()];
    for (index, function) in functions.iter().enumerate() {
        let rows = builder.line_rows(function);
        info.line_rows.push(rows);
        let ir_function = &module.functions[function.ir_function];
        if let Some(sp) = ir_function.subprogram {
            concrete[index] = builder.concrete_subprogram(sp, index, function, ir_function);
        }
    }
    // IR function → its concrete DIE, the origin of calls to it.
    let defined: FxHashMap<usize, emit::SubprogramId> = functions
        .iter()
        .zip(&concrete)
        .filter_map(|(function, id)| Some((function.ir_function, (*id)?)))
        .collect();
    for (function, id) in functions.iter().zip(&concrete) {
        if let Some(id) = *id {
            let calls = builder.calls(module, &defined, function);
            builder.types.subprograms[id].calls = calls;
        }
    }
    builder.abstract_variables();
    let concrete_of: FxHashMap<MdId, emit::SubprogramId> = functions
        .iter()
        .zip(&concrete)
        .filter_map(|(function, id)| {
            Some((module.functions[function.ir_function].subprogram?, (*id)?))
        })
        .collect();
    let (globals, global_index) = builder.globals(module, data, &concrete_of);
    info.globals = globals;
    // A function also inlined elsewhere refers to its abstract origin.
    for (sp, &id) in &concrete_of {
        if let Some(&origin) = builder.abstract_origins.get(sp) {
            builder.types.subprograms[id].abstract_origin = Some(origin);
        }
    }
    info.imports = builder.imports(module, &concrete_of, &global_index);
    info.files = builder.types.files.files;
    info.types = builder.types.types;
    info.subprograms = builder.types.subprograms;
    info
}

struct Builder<'a> {
    debug: &'a DebugInfo,
    /// Types, files and subprogram DIEs.
    types: TypeTable<'a>,
    abstract_origins: FxHashMap<MdId, emit::SubprogramId>,
    /// The variables of each inlined subprogram seen in inlined calls, in
    /// order of appearance: its abstract origin's variables.
    inlined_variables: FxHashMap<MdId, Vec<MdId>>,
    declarations: FxHashMap<String, emit::SubprogramId>,
}

impl<'a> Builder<'a> {
    /// The file table index of a DIFile (0, the compile unit's file, when unknown).
    fn file(&mut self, file: Option<MdId>) -> u32 {
        self.types.files.file(file)
    }

    /// The DIFile of a scope node.
    fn scope_file(&self, scope: MdId) -> Option<MdId> {
        match self.debug.node(scope) {
            MdNode::Subprogram(s) => s.file,
            MdNode::LexicalBlock(b) => b.file,
            MdNode::LexicalBlockFile(b) => b.file,
            _ => None,
        }
    }

    fn line_rows(&mut self, function: &FunctionDebug) -> Vec<emit::LineRow> {
        let mut rows = Vec::with_capacity(function.line_entries.len());
        let mut file = 0;
        for entry in &function.line_entries {
            if entry.file.is_some() {
                file = self.file(entry.file);
            }
            rows.push(emit::LineRow {
                offset: entry.offset,
                file,
                line: entry.line,
                column: entry.column,
                is_stmt: entry.is_stmt,
                prologue_end: entry.prologue_end,
                epilogue_begin: entry.epilogue_begin,
            });
        }
        rows
    }

    /// The module's global variables, each located at its data object, and
    /// the index of each DIGlobalVariable among them. A function's static
    /// (a DIGlobalVariable scoped in a subprogram or one of its blocks)
    /// sits in that function's abstract origin when it was inlined, so the
    /// concrete DIE and every inlined copy inherit it (llc puts it in the
    /// concrete DIE only, where gdb misses it in inlined copies); else in
    /// its concrete DIE; in the unit when the function left no DIE. Functions' statics come last, by function,
    /// in the order a reader meets them.
    fn globals(
        &mut self,
        module: &Module,
        data: &[emit::DataObject],
        concrete_of: &FxHashMap<MdId, emit::SubprogramId>,
    ) -> (Vec<emit::GlobalVariable>, FxHashMap<MdId, usize>) {
        let mut globals = Vec::new();
        for global in &module.globals {
            for &expression in &global.dbg {
                let MdNode::GlobalVariableExpression(gve) = self.debug.node(expression) else {
                    continue;
                };
                let MdNode::GlobalVariable(variable) = self.debug.node(gve.var) else {
                    continue;
                };
                let function = variable
                    .scope
                    .and_then(|scope| self.debug.scope_subprogram(scope))
                    .and_then(|sp| {
                        self.abstract_origins
                            .get(&sp)
                            .or_else(|| concrete_of.get(&sp))
                            .copied()
                    });
                globals.push((
                    gve.var,
                    emit::GlobalVariable {
                        function,
                        name: variable.name.clone(),
                        linkage_name: variable.linkage_name.clone(),
                        ty: self.types.type_of(variable.ty),
                        file: self.file(variable.file),
                        line: variable.line,
                        external: !variable.is_local,
                        data: data.iter().position(|d| d.name == global.name),
                        context: self.types.scope_of(variable.scope),
                        specification: field_node(&variable.other, "declaration")
                            .and_then(|member| self.types.static_member(member)),
                    },
                ));
            }
        }
        globals.sort_by_key(|(_, global)| global.function);
        let mut index = FxHashMap::default();
        for (position, (variable, _)) in globals.iter().enumerate() {
            index.entry(*variable).or_insert(position);
        }
        (
            globals.into_iter().map(|(_, global)| global).collect(),
            index,
        )
    }

    /// The unit's imports (its `imports:` list), each naming the DIE of a
    /// namespace or type, a function's concrete DIE or declaration, a
    /// global variable or another import, in its namespace as LLVM's
    /// DwarfCompileUnit::getOrCreateImportedEntityDIE places it. An import
    /// of something given no DIE here (a function defined in the IR but
    /// not compiled into this object, a global variable without a
    /// definition, a module) is left out.
    fn imports(
        &mut self,
        module: &Module,
        concrete_of: &FxHashMap<MdId, emit::SubprogramId>,
        globals: &FxHashMap<MdId, usize>,
    ) -> Vec<emit::Import> {
        let debug = self.debug;
        let Some(MdNode::CompileUnit(unit)) =
            module.compile_units().first().map(|&cu| debug.node(cu))
        else {
            return Vec::new();
        };
        let nodes: Vec<MdId> = tuple_nodes(debug, field_node(&unit.other, "imports"))
            .into_iter()
            .filter(|&id| matches!(debug.node(id), MdNode::Other { kind, .. } if kind == "DIImportedEntity"))
            .collect();
        // Every import's index, for imports of imports; then the entities.
        let mut entities: Vec<Option<emit::ImportedEntity>> = Vec::with_capacity(nodes.len());
        for &node in &nodes {
            let entity =
                other_node(debug, node, "entity").and_then(|entity| match debug.node(entity) {
                    MdNode::Subprogram(sp) => match concrete_of.get(&entity) {
                        Some(&id) => Some(emit::ImportedEntity::Subprogram(id)),
                        None if !sp.is_definition() => Some(emit::ImportedEntity::Subprogram(
                            self.types.declaration_of(entity),
                        )),
                        None => None,
                    },
                    MdNode::GlobalVariable(_) => globals
                        .get(&entity)
                        .map(|&g| emit::ImportedEntity::Global(g)),
                    MdNode::Other { kind, .. } if kind == "DIImportedEntity" => nodes
                        .iter()
                        .position(|&n| n == entity)
                        .map(emit::ImportedEntity::Import),
                    _ => self
                        .types
                        .type_of(Some(entity))
                        .map(emit::ImportedEntity::Type),
                });
            entities.push(entity);
        }
        // An import of a left-out import is left out too.
        let mut kept: Vec<bool> = entities.iter().map(Option::is_some).collect();
        for _ in 0..nodes.len() {
            let mut changed = false;
            for (index, entity) in entities.iter().enumerate() {
                if let Some(emit::ImportedEntity::Import(target)) = entity {
                    if kept[index] && !kept[*target] {
                        kept[index] = false;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut new_index = Vec::with_capacity(nodes.len());
        let mut count = 0;
        for &keep in &kept {
            new_index.push(count);
            count += usize::from(keep);
        }
        let mut imports = Vec::with_capacity(count);
        for ((&node, entity), keep) in nodes.iter().zip(entities).zip(kept) {
            let (Some(entity), true) = (entity, keep) else {
                continue;
            };
            let MdNode::Other { fields, .. } = debug.node(node) else {
                continue;
            };
            let field = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v);
            imports.push(emit::Import {
                module: field("tag") == Some(&MdField::Name("DW_TAG_imported_module".into())),
                context: self.types.scope_of(other_node(debug, node, "scope")),
                file: self.file(other_node(debug, node, "file")),
                line: match field("line") {
                    Some(MdField::Int(line)) => *line as u32,
                    _ => 0,
                },
                name: match field("name") {
                    Some(MdField::Str(name)) if !name.is_empty() => Some(name.clone()),
                    _ => None,
                },
                entity: match entity {
                    emit::ImportedEntity::Import(i) => emit::ImportedEntity::Import(new_index[i]),
                    entity => entity,
                },
            });
        }
        imports
    }

    /// The scopes from the function down to `scope` (tagged with the inlined
    /// call they are in), outermost first; lexical-block-file nodes, which
    /// only switch files, are left out as LLVM does.
    fn scope_path(&self, scope: MdId, inlined_at: Option<LocId>) -> Vec<ScopeKey> {
        let mut path = Vec::new();
        let (mut scope, mut inlined_at) = (scope, inlined_at);
        loop {
            let mut current = Some(scope);
            while let Some(s) = current {
                if !matches!(self.debug.node(s), MdNode::LexicalBlockFile(_)) {
                    path.push((s, inlined_at));
                }
                current = self.debug.parent_scope(s);
            }
            let Some(call) = inlined_at else { break };
            let call_site = self.debug.location(call);
            scope = call_site.scope;
            inlined_at = call_site.inlined_at;
        }
        path.reverse();
        path
    }

    /// The concrete DIE of object function `index`, made from `sp`.
    fn concrete_subprogram(
        &mut self,
        sp: MdId,
        index: usize,
        function: &FunctionDebug,
        ir_function: &Function,
    ) -> Option<emit::SubprogramId> {
        let subprogram = self.debug.subprogram(sp)?;
        // Each location change covers the bytes up to the next one. Many
        // rows share a scope: each distinct one's path is worked out once.
        let mut paths: Vec<Vec<ScopeKey>> = Vec::new();
        let mut path_of: FxHashMap<(MdId, Option<LocId>), usize> = FxHashMap::default();
        let mut spans = Vec::new();
        for (i, line) in function.line_entries.iter().enumerate() {
            let end = function
                .line_entries
                .get(i + 1)
                .map_or(function.code_size, |next| next.offset);
            let Some(loc) = line.loc else { continue };
            let location = self.debug.location(loc);
            let path = *path_of
                .entry((location.scope, location.inlined_at))
                .or_insert_with(|| {
                    paths.push(self.scope_path(location.scope, location.inlined_at));
                    paths.len() - 1
                });
            if paths[path].first() == Some(&(sp, None)) && line.offset < end {
                spans.push((line.offset, end, path));
            }
        }
        let tree = ScopeTree::build(
            spans
                .iter()
                .map(|&(start, end, path)| (start, end, &paths[path][1..])),
        );

        // Variables: every one with a range, then the retained ones
        // without, then the ones whose every debug record lost its location
        // (as LLVM keeps them: gdb says `<optimized out>`, not "No symbol").
        let mut ranges: FxHashMap<(MdId, Option<LocId>), Vec<LocationRange>> = FxHashMap::default();
        let mut order: Vec<(MdId, Option<LocId>)> = Vec::new();
        for range in &function.variable_ranges {
            let key = (range.key.variable, range.key.inlined_at);
            ranges
                .entry(key)
                .or_insert_with(|| {
                    order.push(key);
                    Vec::new()
                })
                .push(LocationRange {
                    fragment: range.key.fragment.map(|(offset, size)| Fragment {
                        offset_bits: offset as u32,
                        size_bits: size as u32,
                    }),
                    start: range.start,
                    end: range.end,
                    location: range.location.clone(),
                });
        }
        // The retained variables of the function, and of each inlined copy
        // of another (LLVM gives those abstract variables, which gdb lists
        // in every copy), in scope order.
        let mut copies: Vec<(MdId, Option<LocId>)> = path_of
            .keys()
            .filter_map(|&(scope, inlined_at)| {
                let at = inlined_at?;
                Some((self.debug.scope_subprogram(scope)?, Some(at)))
            })
            .collect();
        copies.sort_unstable();
        copies.dedup();
        copies.insert(0, (sp, None));
        for (copy_of, inlined_at) in copies {
            let Some(retained) = self
                .debug
                .subprogram(copy_of)
                .and_then(|s| s.retained_nodes)
            else {
                continue;
            };
            for retained in self.debug.tuple(retained) {
                if let MdOperand::Ref(MdRef::Node(variable)) = retained {
                    if self.debug.variable(*variable).is_some() {
                        if let Entry::Vacant(e) = ranges.entry((*variable, inlined_at)) {
                            e.insert(Vec::new());
                            order.push((*variable, inlined_at));
                        }
                    }
                }
            }
        }
        for block in &ir_function.blocks {
            for &inst in &block.insts {
                for record in &ir_function.inst(inst).records {
                    if record.kind == RecordKind::Label {
                        continue;
                    }
                    let key = (record.variable, self.debug.location(record.loc).inlined_at);
                    if let Entry::Vacant(e) = ranges.entry(key) {
                        e.insert(Vec::new());
                        order.push(key);
                    }
                }
            }
        }
        let mut node_variables: FxHashMap<NodeId, Vec<emit::Variable>> = FxHashMap::default();
        let mut variables: Vec<(NodeId, Option<u32>, u32, emit::Variable)> = Vec::new();
        for (position, key) in order.iter().enumerate() {
            let Some(variable) = self.debug.variable(key.0) else {
                continue;
            };
            let path = self.scope_path(variable.scope, key.1);
            if path.first() != Some(&(sp, None)) {
                continue;
            }
            let Some(node) = tree.find(&path[1..]) else {
                continue;
            };
            if key.1.is_some() {
                // An inlined copy: its abstract origin declares it.
                if let Some(origin) = self.debug.scope_subprogram(variable.scope) {
                    let declared = self.inlined_variables.entry(origin).or_default();
                    if !declared.contains(&key.0) {
                        declared.push(key.0);
                    }
                }
            }
            // The function's own scope is all of its code, prologue included.
            let whole = [(0, function.code_size)];
            let scope = if node == 0 {
                &whole[..]
            } else {
                &tree.nodes[node].ranges[..]
            };
            let location = describe(
                index,
                self.types.size_bits(variable.ty),
                scope,
                &ranges[key],
            );
            let described = self.variable(variable, location);
            variables.push((node, variable.arg, position as u32, described));
        }
        // Parameters first in argument order, then locals in order of appearance.
        variables.sort_by_key(|(node, arg, position, _)| (*node, arg.is_none(), *arg, *position));
        for (node, _, _, variable) in variables {
            node_variables.entry(node).or_default().push(variable);
        }

        let scope = self.scope_of(&tree, 0, &mut node_variables);
        let concrete = emit::Subprogram {
            scope,
            ..self.types.subprogram(subprogram, Some(index), false)
        };
        self.types.subprograms.push(concrete);
        Some(self.types.subprograms.len() - 1)
    }

    /// The call sites of a function whose subprogram asks for them
    /// (`DIFlagAllCallsDescribed`, which clang sets when it optimises and
    /// our optimiser sets too, as LLVM's DwarfDebug requires): one per call,
    /// whose origin is the callee's concrete DIE or a declaration
    /// ([`Builder::declaration`]), or whose target is a register. `all_described` holds when no call was left out.
    fn calls(
        &mut self,
        module: &Module,
        defined: &FxHashMap<usize, emit::SubprogramId>,
        function: &FunctionDebug,
    ) -> emit::Calls {
        let wanted = module.functions[function.ir_function]
            .subprogram
            .and_then(|sp| self.debug.subprogram(sp))
            .is_some_and(|s| s.flags.iter().any(|f| f == "DIFlagAllCallsDescribed"));
        if !wanted {
            return emit::Calls::default();
        }
        let mut sites = Vec::new();
        for site in &function.call_sites {
            let callee = match &site.callee {
                Callee::Register(register) => Some(emit::Callee::Register(register.dwarf())),
                Callee::Symbol(name) => {
                    let callee = module.function_by_name(name).map(|f| f.0 as usize);
                    let origin = match callee.and_then(|f| defined.get(&f)) {
                        Some(&id) => id,
                        None => self
                            .declaration(name, callee.and_then(|f| module.functions[f].subprogram)),
                    };
                    Some(emit::Callee::Origin(origin))
                }
            };
            let Some(callee) = callee else { continue };
            sites.push(emit::CallSite {
                offset: site.offset,
                tail: site.tail,
                callee,
                parameters: site
                    .parameters
                    .iter()
                    .map(|&(register, value)| emit::CallSiteParameter {
                        register: register.dwarf(),
                        value: match value {
                            CallValue::Constant(n) => emit::CallValue::Constant(n),
                            CallValue::Register { register, bits } => emit::CallValue::Register {
                                register: register.dwarf(),
                                bits,
                            },
                            CallValue::EntryValue(register) => emit::CallValue::EntryValue {
                                register: register.dwarf(),
                            },
                        },
                    })
                    .collect(),
            });
        }
        emit::Calls {
            all_described: sites.len() == function.call_sites.len(),
            sites,
        }
    }

    /// The declaration DIE of `symbol`, a function defined elsewhere, made
    /// once: from its subprogram when it has one (shared with the class or
    /// import that declares it), else (a callee clang gave no `!dbg`, a
    /// library routine code generation calls) just its name, as gcc
    /// declares the functions it calls; a debugger finds the callee by that
    /// name.
    fn declaration(&mut self, symbol: &str, sp: Option<MdId>) -> emit::SubprogramId {
        if let Some(&id) = self.declarations.get(symbol) {
            return id;
        }
        let id = match sp.and_then(|sp| Some((sp, self.debug.subprogram(sp)?))) {
            Some((sp, subprogram)) if !subprogram.is_definition() => self.types.declaration_of(sp),
            Some((_, subprogram)) => {
                let declaration = self.types.subprogram(subprogram, None, true);
                self.types.subprograms.push(declaration);
                self.types.subprograms.len() - 1
            }
            None => {
                self.types.subprograms.push(emit::Subprogram {
                    name: symbol.to_string(),
                    external: true,
                    declaration: true,
                    ..emit::Subprogram::default()
                });
                self.types.subprograms.len() - 1
            }
        };
        self.declarations.insert(symbol.to_string(), id);
        id
    }

    /// The emit scope of tree node `node`, with its variables and children.
    fn scope_of(
        &mut self,
        tree: &ScopeTree<ScopeKey>,
        node: NodeId,
        variables: &mut FxHashMap<NodeId, Vec<emit::Variable>>,
    ) -> emit::Scope {
        let mut scope = emit::Scope {
            variables: variables.remove(&node).unwrap_or_default(),
            children: Vec::new(),
        };
        for &child in &tree.nodes[node].children {
            let inner = self.scope_of(tree, child, variables);
            let ranges = tree.nodes[child].ranges.clone();
            let Some((key, inlined_at)) = tree.nodes[child].key else {
                continue;
            };
            let entry = match (self.debug.node(key), inlined_at) {
                (MdNode::Subprogram(_), Some(call)) => {
                    let origin = self.abstract_origin(key);
                    let call_site = self.debug.location(call);
                    emit::ChildScope::Inlined {
                        origin,
                        ranges,
                        call_file: self.file(self.scope_file(call_site.scope)),
                        call_line: call_site.line,
                        call_column: call_site.column,
                        scope: inner,
                    }
                }
                _ => emit::ChildScope::Lexical {
                    ranges,
                    scope: inner,
                },
            };
            scope.children.push(entry);
        }
        scope
    }

    /// The DIE of a local variable or parameter at `location`.
    fn variable(
        &mut self,
        variable: &DILocalVariable,
        location: emit::VariableLocation,
    ) -> emit::Variable {
        let has_flag = |flag: &str| variable.flags.iter().any(|f| f == flag);
        emit::Variable {
            name: variable.name.clone(),
            arg: variable.arg,
            ty: self.types.type_of(variable.ty),
            file: self.file(variable.file),
            line: variable.line,
            location,
            artificial: has_flag("DIFlagArtificial") || self.types.is_artificial(variable.ty),
            object_pointer: has_flag("DIFlagObjectPointer"),
        }
    }

    /// Gives each abstract origin the variables its inlined calls have,
    /// without locations, in its lexical blocks (address-less), parameters
    /// first in argument order, as LLVM's abstract subprogram DIE has them;
    /// the inlined copies then refer to them (DW_AT_abstract_origin), and a
    /// `this` among them is the origin's DW_AT_object_pointer.
    fn abstract_variables(&mut self) {
        let mut origins: Vec<(MdId, emit::SubprogramId)> = self
            .abstract_origins
            .iter()
            .map(|(&sp, &id)| (sp, id))
            .collect();
        origins.sort_unstable_by_key(|&(_, id)| id);
        for (sp, id) in origins {
            let variables = self.inlined_variables.remove(&sp).unwrap_or_default();
            let mut root = AbstractScope::default();
            for (position, var) in variables.into_iter().enumerate() {
                let Some(variable) = self.debug.variable(var) else {
                    continue;
                };
                let path = self.scope_path(variable.scope, None);
                if path.first() != Some(&(sp, None)) {
                    continue;
                }
                let described = self.variable(variable, emit::VariableLocation::None);
                let blocks: Vec<MdId> = path[1..].iter().map(|&(block, _)| block).collect();
                root.add(&blocks, (variable.arg, position, described));
            }
            self.types.subprograms[id].scope = root.into_scope();
        }
    }

    /// The out-of-line DIE an inlined subroutine refers to, made once.
    fn abstract_origin(&mut self, sp: MdId) -> emit::SubprogramId {
        if let Some(&id) = self.abstract_origins.get(&sp) {
            return id;
        }
        let Some(subprogram) = self.debug.subprogram(sp) else {
            unreachable!("abstract origins are made for subprogram scopes only")
        };
        let origin = self.types.subprogram(subprogram, None, false);
        let id = self.types.subprograms.len();
        self.types.subprograms.push(origin);
        self.abstract_origins.insert(sp, id);
        id
    }
}

/// An abstract origin's scope being built: its variables and the lexical
/// blocks inside it, in order of first appearance.
#[derive(Default)]
struct AbstractScope {
    /// (argument, order of appearance, variable).
    variables: Vec<(Option<u32>, usize, emit::Variable)>,
    children: Vec<(MdId, AbstractScope)>,
}

impl AbstractScope {
    /// Adds a variable declared in the lexical blocks `blocks` (outermost
    /// first) of this scope.
    fn add(&mut self, blocks: &[MdId], variable: (Option<u32>, usize, emit::Variable)) {
        let Some((&block, inner)) = blocks.split_first() else {
            self.variables.push(variable);
            return;
        };
        let index = match self.children.iter().position(|(b, _)| *b == block) {
            Some(index) => index,
            None => {
                self.children.push((block, AbstractScope::default()));
                self.children.len() - 1
            }
        };
        self.children[index].1.add(inner, variable);
    }

    /// The emit scope: parameters first in argument order, then locals in
    /// order of appearance; blocks without addresses.
    fn into_scope(mut self) -> emit::Scope {
        self.variables
            .sort_by_key(|(arg, position, _)| (arg.is_none(), *arg, *position));
        emit::Scope {
            variables: self.variables.into_iter().map(|(_, _, v)| v).collect(),
            children: self
                .children
                .into_iter()
                .map(|(_, scope)| emit::ChildScope::Lexical {
                    ranges: Vec::new(),
                    scope: scope.into_scope(),
                })
                .collect(),
        }
    }
}

/// The node a field of an unmodelled node (`!DIImportedEntity`) names.
fn other_node(debug: &DebugInfo, node: MdId, name: &str) -> Option<MdId> {
    match debug.node(node) {
        MdNode::Other { fields, .. } => field_node(fields, name),
        _ => None,
    }
}

/// Whether a DW_LANG_* number is C or Objective-C, the languages LLVM
/// writes DW_AT_prototyped for (`dwarf::isC`).
fn is_c(language: u16) -> bool {
    matches!(language, 0x01 | 0x02 | 0x0c | 0x1d | 0x2c | 0x10)
}

/// The DW_LANG_* number of a language name.
fn language(name: &str) -> u16 {
    match name {
        "DW_LANG_C89" => 0x01,
        "DW_LANG_C" => 0x02,
        "DW_LANG_C_plus_plus" => 0x04,
        "DW_LANG_C99" => 0x0c,
        "DW_LANG_C_plus_plus_11" => 0x1a,
        "DW_LANG_C11" => 0x1d,
        "DW_LANG_C_plus_plus_14" => 0x21,
        "DW_LANG_C17" => 0x2c,
        _ => 0x1d,
    }
}
