//! The DIE walk of `llvm-dwarfdump --statistics` (LLVM 19, statistics
//! version 9), with what dwarfsmith adds per function and per variable.
//!
//! In: [`Units`] and the file's [`LoadedFile`]. Out: a [`Walk`]: the
//! per-function table llvm-dwarfdump sums into its figures, the global byte
//! and location-coverage counts, and one [`Variable`] per variable DIE.
//!
//! Follows llvm-dwarfdump to the number, including its odd corners: a
//! function is identified by its linkage name (else name), declaring file's
//! base name and line, so instances of one function in several units are
//! one; a variable by its name and its path of lexical-block and
//! parameter indices; a variable's coverage is the overlap of its location
//! ranges with its parent DIE's ranges, computed on addresses as LLVM reads
//! them (section-relative in an object); the variables of an inlined
//! function with no concrete DIE count at 0%; and abstract-origin offsets
//! are compared as LLVM compares them (the attribute's raw value against
//! `.debug_info` offsets); one variable's byte counts wrap and the file's
//! sums saturate, as LLVM's `uint64_t` and `SaturatingUINT64` do.

use std::collections::{HashMap, HashSet};

use super::dies::{comp_dir, DieRef, Units};
use super::lines::absolute_path;
use super::load::LoadedFile;

/// The number of coverage buckets: 0%, (0%,10%), [10%,20%) ... [90%,100%), 100%.
pub(crate) const BUCKETS: usize = 12;

/// What llvm-dwarfdump keeps per function (or, for "/", per unit scope).
#[derive(Default)]
pub(crate) struct FunctionStats {
    /// Inlined instances.
    pub inlined: u64,
    /// Out-of-line instances.
    pub out_of_line: u64,
    /// Inlined instances with an abstract origin.
    pub abstract_origins: u64,
    /// Variables and parameters with a location, over all instances.
    pub with_location: u64,
    /// Constant members.
    pub constant_members: u64,
    /// Artificial variables and parameters.
    pub artificial: u64,
    /// The distinct variable ids.
    pub variables: HashSet<String>,
    /// Whether this is a function (not the unit scope "/").
    pub is_function: bool,
    /// Whether it has a declaring file and line.
    pub has_source_location: bool,
    /// Parameters (not artificial), over all instances.
    pub params: u64,
    /// ... with a declaring file and line.
    pub params_with_source: u64,
    /// ... with a type.
    pub params_with_type: u64,
    /// ... with a location.
    pub params_with_location: u64,
    /// Local variables (not artificial), over all instances.
    pub locals: u64,
    /// ... with a declaring file and line.
    pub locals_with_source: u64,
    /// ... with a type.
    pub locals_with_type: u64,
    /// ... with a location.
    pub locals_with_location: u64,
    /// Bytes of the variables' parent scopes (dwarfsmith's per-function figure).
    pub scope_bytes: u64,
    /// ... covered by their locations.
    pub scope_bytes_covered: u64,
    /// The out-of-line instances' address ranges (synthetic in an object).
    pub ranges: Vec<(u64, u64)>,
}

/// Coverage buckets of one kind of variable.
#[derive(Default, Clone, Copy)]
pub(crate) struct Buckets {
    /// Variables counted.
    pub processed: u64,
    /// By bucket.
    pub counts: [u64; BUCKETS],
    /// By bucket, entry-value bytes not counted as covered.
    pub non_entry_value: [u64; BUCKETS],
}

/// Byte sums of one kind of variable.
#[derive(Default, Clone, Copy)]
pub(crate) struct ScopeBytes {
    /// Bytes of the parent scopes.
    pub in_scope: u64,
    /// ... covered by a location.
    pub covered: u64,
    /// ... covered by an entry value.
    pub entry_value: u64,
}

/// Where a variable lives over one address range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocationKind {
    /// A register (`DW_OP_reg*`, `DW_OP_regx`).
    Register,
    /// Memory: a stack slot or any address.
    Memory,
    /// A constant or computed value (`DW_OP_stack_value`, `DW_OP_implicit_value`).
    Computed,
    /// An expression using `DW_OP_entry_value`.
    EntryValue,
}

impl LocationKind {
    /// The kind's name in the JSON and the page.
    pub fn name(self) -> &'static str {
        match self {
            LocationKind::Register => "register",
            LocationKind::Memory => "memory",
            LocationKind::Computed => "computed",
            LocationKind::EntryValue => "entry-value",
        }
    }
}

/// One variable or parameter DIE inside a function.
pub(crate) struct Variable {
    /// The id of the function it belongs to.
    pub function: String,
    /// Its id in the function (block path and name).
    pub id: String,
    /// Its name.
    pub name: String,
    /// A parameter (else a local variable).
    pub is_param: bool,
    /// Bytes of its parent scope.
    pub scope_bytes: u64,
    /// ... covered by its location.
    pub covered: u64,
    /// Its location ranges (synthetic addresses) and kinds; a location
    /// without range covers the parent scope.
    pub ranges: Vec<(u64, u64, LocationKind)>,
    /// Whether it belongs to an inlined instance.
    pub inlined: bool,
}

/// Everything the walk gathers.
#[derive(Default)]
pub(crate) struct Walk {
    /// Per function id, in the order first met.
    pub functions: Vec<(String, FunctionStats)>,
    index: HashMap<String, usize>,
    /// All variables.
    pub variables: Vec<Variable>,
    /// `DW_AT_call_file` + `DW_AT_call_line` scopes.
    pub call_site_entries: u64,
    /// `DW_TAG_call_site` DIEs.
    pub call_site_dies: u64,
    /// `DW_TAG_call_site_parameter` DIEs.
    pub call_site_parameter_dies: u64,
    /// Bytes covered by locations anywhere.
    pub total_bytes_covered: u64,
    /// All variables', parameters' and local variables' scope bytes.
    pub all: ScopeBytes,
    /// Parameters' scope bytes.
    pub params: ScopeBytes,
    /// Local variables' scope bytes.
    pub locals: ScopeBytes,
    /// Bytes of concrete functions.
    pub function_bytes: u64,
    /// Bytes of outermost inlined instances.
    pub inlined_bytes: u64,
    /// Coverage buckets of all variables.
    pub all_buckets: Buckets,
    /// ... of parameters.
    pub param_buckets: Buckets,
    /// ... of local variables.
    pub local_buckets: Buckets,
}

/// The state of the walk over all units.
struct Walker<'u, 'a> {
    units: &'u Units<'a>,
    file: &'u LoadedFile,
    walk: Walk,
    global_abstract: HashMap<u64, Vec<u64>>,
    local_abstract: HashMap<u64, Vec<u64>>,
    abstract_units: HashMap<u64, usize>,
    deferred: Vec<u64>,
}

/// Walks every unit of `units`.
pub(crate) fn walk(units: &Units<'_>, file: &LoadedFile) -> Walk {
    let mut walker = Walker {
        units,
        file,
        walk: Walk::default(),
        global_abstract: HashMap::new(),
        local_abstract: HashMap::new(),
        abstract_units: HashMap::new(),
        deferred: Vec::new(),
    };
    let mut cross_unit = Vec::new();
    for unit in 0..units.units.len() {
        walker.local_abstract.clear();
        walker.deferred.clear();
        let root = DieRef { unit, die: 0 };
        walker.recurse(root, "/", "g".into(), 0, 0, None);
        walker.zero_coverage_of_deferred(unit);
        cross_unit.extend(walker.deferred.iter().map(|&offset| (unit, offset)));
    }
    walker.zero_coverage_across_units(&cross_unit);
    walker.walk
}

impl Walker<'_, '_> {
    fn function(&mut self, id: &str) -> &mut FunctionStats {
        let next = self.walk.functions.len();
        let index = *self.walk.index.entry(id.to_string()).or_insert(next);
        if index == next {
            self.walk
                .functions
                .push((id.to_string(), FunctionStats::default()));
        }
        &mut self.walk.functions[index].1
    }

    fn recurse(
        &mut self,
        die: DieRef,
        function: &str,
        mut prefix: String,
        mut bytes_in_scope: u64,
        mut inline_depth: u32,
        inherited: Option<&mut Vec<u64>>,
    ) {
        let units = self.units;
        let tag = units.tag(die);
        if tag == gimli::DW_TAG_subroutine_type {
            return;
        }
        let is_function = tag == gimli::DW_TAG_subprogram;
        let is_block = tag == gimli::DW_TAG_lexical_block;
        let is_inlined = tag == gimli::DW_TAG_inlined_subroutine;
        let tracks_zero_coverage =
            is_inlined || (is_function && units.has(die, gimli::DW_AT_abstract_origin));
        let mut own: Option<Vec<u64>> = None;
        let mut deferred_here = false;
        if tracks_zero_coverage {
            if let Some(origin) = units.raw_reference(die, gimli::DW_AT_abstract_origin) {
                match self.local_abstract.get(&origin) {
                    Some(vars) => own = Some(vars.clone()),
                    None => {
                        self.deferred.push(units.offset(die));
                        deferred_here = true;
                    }
                }
            }
        }
        let mut function = function.to_string();
        if is_function || is_inlined || is_block {
            if is_function || is_inlined {
                prefix = "v".into();
            }
            if units.has(die, gimli::DW_AT_declaration) {
                return;
            }
            if units.has(die, gimli::DW_AT_call_file) && units.has(die, gimli::DW_AT_call_line) {
                self.walk.call_site_entries += 1;
            }
            let Some(ranges) = units.ranges(die) else {
                return;
            };
            let bytes: u64 = ranges.iter().fold(0u64, |sum, &(low, high)| {
                sum.wrapping_add(high.wrapping_sub(low))
            });
            if !is_block {
                if units.has(die, gimli::DW_AT_inline) {
                    self.record_abstract_function(die);
                    return;
                }
                let id = self.die_id(die, "");
                let has_origin = units
                    .find_recursively(die, &[gimli::DW_AT_abstract_origin])
                    .is_some();
                let has_source = units.has_source_location(die);
                let stats = self.function(&id);
                stats.is_function = true;
                if is_inlined {
                    stats.inlined += 1;
                    stats.abstract_origins += u64::from(has_origin);
                } else {
                    stats.out_of_line += 1;
                    stats.ranges.extend(ranges.iter().copied());
                }
                stats.has_source_location |= has_source;
                function = id;
            }
            if bytes != 0 {
                bytes_in_scope = bytes;
                if is_function {
                    self.walk.function_bytes = self.walk.function_bytes.saturating_add(bytes);
                } else if is_inlined && inline_depth == 0 {
                    self.walk.inlined_bytes = self.walk.inlined_bytes.saturating_add(bytes);
                }
            }
        }
        let mut pointer: Option<&mut Vec<u64>> = match own.as_mut() {
            Some(vars) => Some(vars),
            None if deferred_here => None,
            None => inherited,
        };
        if !(is_function || is_inlined || is_block) {
            self.variable(
                die,
                &function,
                &prefix,
                bytes_in_scope,
                inline_depth,
                pointer.as_deref_mut(),
            );
        }
        if is_function {
            inline_depth = 0;
        } else if is_inlined {
            inline_depth += 1;
        }
        let mut blocks = 0u32;
        let mut params = 0u32;
        for &child in &units.units[die.unit].dies[die.die].children {
            let child = DieRef {
                unit: die.unit,
                die: child,
            };
            let mut child_prefix = prefix.clone();
            match units.tag(child) {
                gimli::DW_TAG_lexical_block => {
                    child_prefix.push_str(&format!("{blocks:x}."));
                    blocks += 1;
                }
                gimli::DW_TAG_formal_parameter => {
                    child_prefix.push_str(&format!("p{params:x}."));
                    params += 1;
                }
                _ => {}
            }
            self.recurse(
                child,
                &function,
                child_prefix,
                bytes_in_scope,
                inline_depth,
                pointer.as_deref_mut(),
            );
        }
        if tracks_zero_coverage {
            for offset in own.unwrap_or_default() {
                let tag = units.at_offset(die.unit, offset).map(|var| units.tag(var));
                self.count_zero_coverage(tag);
            }
        }
    }

    /// A variable of an inlined function that no concrete DIE describes:
    /// counted at 0%.
    fn count_zero_coverage(&mut self, tag: Option<gimli::DwTag>) {
        let walk = &mut self.walk;
        walk.all_buckets.processed += 1;
        walk.all_buckets.counts[0] += 1;
        match tag {
            Some(gimli::DW_TAG_formal_parameter) => {
                walk.param_buckets.processed += 1;
                walk.param_buckets.counts[0] += 1;
            }
            Some(gimli::DW_TAG_variable) => {
                walk.local_buckets.processed += 1;
                walk.local_buckets.counts[0] += 1;
            }
            _ => {}
        }
    }

    /// Remembers the variables of an abstract (`DW_AT_inline`) subprogram.
    fn record_abstract_function(&mut self, die: DieRef) {
        let offset = self.units.offset(die);
        self.abstract_units.insert(offset, die.unit);
        let mut vars = Vec::new();
        self.abstract_variables(die, &mut vars);
        for var in vars {
            self.global_abstract.entry(offset).or_default().push(var);
            self.local_abstract.entry(offset).or_default().push(var);
        }
    }

    fn abstract_variables(&self, die: DieRef, vars: &mut Vec<u64>) {
        let units = self.units;
        for &child in &units.units[die.unit].dies[die.die].children {
            let child = DieRef {
                unit: die.unit,
                die: child,
            };
            match units.tag(child) {
                gimli::DW_TAG_formal_parameter | gimli::DW_TAG_variable => {
                    vars.push(units.offset(child));
                }
                gimli::DW_TAG_lexical_block => self.abstract_variables(child, vars),
                _ => {}
            }
        }
    }

    /// Removes from `vars` the origins of `die`'s variables that have a
    /// location (LLVM's `updateVarsWithAbstractOriginLocCovInfo`).
    fn remove_located(&self, die: DieRef, vars: &mut Vec<u64>) {
        let units = self.units;
        for &child in &units.units[die.unit].dies[die.die].children {
            let child = DieRef {
                unit: die.unit,
                die: child,
            };
            let tag = units.tag(child);
            let is_variable =
                tag == gimli::DW_TAG_formal_parameter || tag == gimli::DW_TAG_variable;
            if is_variable
                && (units.has(child, gimli::DW_AT_location)
                    || units.has(child, gimli::DW_AT_const_value))
            {
                if let Some(origin) = units.raw_reference(child, gimli::DW_AT_abstract_origin) {
                    vars.retain(|&var| var != origin);
                }
            } else if tag == gimli::DW_TAG_lexical_block {
                self.remove_located(child, vars);
            }
        }
    }

    /// Functions whose abstract subprogram came later in their unit.
    fn zero_coverage_of_deferred(&mut self, unit: usize) {
        let mut remaining = Vec::new();
        for offset in std::mem::take(&mut self.deferred) {
            let Some(die) = self.units.at_offset(unit, offset) else {
                continue;
            };
            let Some(origin) = self.units.raw_reference(die, gimli::DW_AT_abstract_origin) else {
                continue;
            };
            let Some(vars) = self.local_abstract.get(&origin) else {
                remaining.push(offset);
                continue;
            };
            let mut vars = vars.clone();
            self.remove_located(die, &mut vars);
            for var in vars {
                let tag = self.units.at_offset(unit, var).map(|v| self.units.tag(v));
                self.count_zero_coverage(tag);
            }
        }
        self.deferred = remaining;
    }

    /// Functions whose abstract subprogram is in another unit.
    fn zero_coverage_across_units(&mut self, deferred: &[(usize, u64)]) {
        for &(unit, offset) in deferred {
            let Some(die) = self.units.at_offset(unit, offset) else {
                continue;
            };
            let Some(origin) = self.units.raw_reference(die, gimli::DW_AT_abstract_origin) else {
                continue;
            };
            let mut vars = self
                .global_abstract
                .get(&origin)
                .cloned()
                .unwrap_or_default();
            self.remove_located(die, &mut vars);
            let origin_unit = self.abstract_units.get(&origin).copied();
            for var in vars {
                let tag = origin_unit
                    .and_then(|u| self.units.at_offset(u, var))
                    .map(|v| self.units.tag(v));
                self.count_zero_coverage(tag);
            }
        }
    }

    /// LLVM's `constructDieID`: prefix and linkage name; for functions and
    /// unit-scope variables also the declaring file's base name and line.
    fn die_id(&self, die: DieRef, prefix: &str) -> String {
        let units = self.units;
        let mut id = format!("{prefix}{}", units.linkage_name(die));
        if !prefix.is_empty() && prefix != "g" {
            return id;
        }
        let file = units
            .find_recursively(die, &[gimli::DW_AT_decl_file])
            .and_then(|value| match value {
                gimli::AttributeValue::FileIndex(index) => Some(index),
                other => other.udata_value(),
            })
            .and_then(|index| {
                let unit = &units.units[die.unit];
                let program = unit.unit.line_program.as_ref()?;
                let comp_dir = comp_dir(&unit.unit);
                absolute_path(unit.dwarf, &unit.unit, program.header(), index, &comp_dir)
            })
            .map(|path| path.rsplit('/').next().unwrap_or("").to_string())
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| "/".into());
        let line = units
            .find_recursively(die, &[gimli::DW_AT_decl_line])
            .and_then(|value| value.udata_value())
            .unwrap_or(0);
        id.push_str(&format!(":{file}:{line}"));
        id
    }

    /// LLVM's `collectStatsForDie`: one DIE that is not a scope.
    fn variable(
        &mut self,
        die: DieRef,
        function: &str,
        prefix: &str,
        bytes_in_scope: u64,
        inline_depth: u32,
        abstract_vars: Option<&mut Vec<u64>>,
    ) {
        let units = self.units;
        let tag = units.tag(die);
        if tag == gimli::DW_TAG_compile_unit {
            return;
        }
        if tag == gimli::DW_TAG_call_site || tag == gimli::DW_TAG_GNU_call_site {
            self.walk.call_site_dies += 1;
            return;
        }
        if tag == gimli::DW_TAG_call_site_parameter || tag == gimli::DW_TAG_GNU_call_site_parameter
        {
            self.walk.call_site_parameter_dies += 1;
            return;
        }
        let is_param = tag == gimli::DW_TAG_formal_parameter;
        let is_local = tag == gimli::DW_TAG_variable;
        let is_constant_member =
            tag == gimli::DW_TAG_member && units.has(die, gimli::DW_AT_const_value);
        if !is_param && !is_local && !is_constant_member {
            return;
        }
        if is_local && units.has(die, gimli::DW_AT_declaration) {
            return;
        }
        let has_source = units.has_source_location(die);
        let has_type = units.find_recursively(die, &[gimli::DW_AT_type]).is_some();
        let mut defer = false;
        if let Some(origin) = units.raw_reference(die, gimli::DW_AT_abstract_origin) {
            if units.has(die, gimli::DW_AT_location) || units.has(die, gimli::DW_AT_const_value) {
                if let Some(vars) = abstract_vars {
                    vars.retain(|&var| var != origin);
                }
            } else {
                defer = true;
            }
        }
        let mut has_location = false;
        let mut total_covered = 0u64;
        let mut scope_covered = 0u64;
        let mut entry_value_covered = 0u64;
        let mut ranges = Vec::new();
        if units.has(die, gimli::DW_AT_const_value) {
            has_location = true;
            scope_covered = bytes_in_scope;
            total_covered = bytes_in_scope;
        } else if let Some(entries) = units.locations(die) {
            has_location = true;
            if let Some(default) = entries.iter().find(|entry| entry.range.is_none()) {
                scope_covered = bytes_in_scope;
                total_covered = bytes_in_scope;
                if let Some(parent) = units.die(die).parent {
                    let parent = DieRef {
                        unit: die.unit,
                        die: parent,
                    };
                    let kind =
                        location_kind(default.expression, units.units[die.unit].unit.encoding());
                    for (low, high) in units.ranges(parent).unwrap_or_default() {
                        ranges.push((low, high, kind));
                    }
                }
            } else {
                let parent = units.die(die).parent.map(|parent| DieRef {
                    unit: die.unit,
                    die: parent,
                });
                let scope = parent
                    .and_then(|parent| units.ranges(parent))
                    .unwrap_or_default();
                let encoding = units.units[die.unit].unit.encoding();
                for entry in &entries {
                    let Some((low, high)) = entry.range else {
                        continue;
                    };
                    total_covered = total_covered.wrapping_add(high.wrapping_sub(low));
                    let kind = location_kind(entry.expression, encoding);
                    let covered = scope.iter().fold(0u64, |sum, &scope_range| {
                        sum.wrapping_add(self.overlap((low, high), scope_range))
                    });
                    scope_covered = scope_covered.wrapping_add(covered);
                    if kind == LocationKind::EntryValue {
                        entry_value_covered = entry_value_covered.wrapping_add(covered);
                    }
                    ranges.push((low, high, kind));
                }
            }
        }
        if bytes_in_scope != 0 && !defer {
            let bucket = bucket_of(scope_covered, bytes_in_scope);
            let non_entry = bucket_of(
                scope_covered.wrapping_sub(entry_value_covered),
                bytes_in_scope,
            );
            let walk = &mut self.walk;
            for buckets in [Some(&mut walk.all_buckets)]
                .into_iter()
                .chain([if is_param {
                    Some(&mut walk.param_buckets)
                } else if is_local {
                    Some(&mut walk.local_buckets)
                } else {
                    None
                }])
                .flatten()
            {
                buckets.processed += 1;
                buckets.counts[bucket] += 1;
                buckets.non_entry_value[non_entry] += 1;
            }
        }
        let origin = units
            .referenced(die, gimli::DW_AT_abstract_origin)
            .unwrap_or(die);
        let id = self.die_id(origin, prefix);
        let name = units.linkage_name(origin);
        let artificial = units.has(origin, gimli::DW_AT_artificial);
        self.walk.total_bytes_covered = self.walk.total_bytes_covered.wrapping_add(total_covered);
        if bytes_in_scope != 0 {
            let walk = &mut self.walk;
            let kinds = [Some(&mut walk.all)].into_iter().chain([if is_param {
                Some(&mut walk.params)
            } else if is_local {
                Some(&mut walk.locals)
            } else {
                None
            }]);
            for sums in kinds.flatten() {
                sums.in_scope = sums.in_scope.saturating_add(bytes_in_scope);
                sums.covered = sums.covered.saturating_add(scope_covered);
                sums.entry_value = sums.entry_value.saturating_add(entry_value_covered);
            }
        }
        let stats = self.function(function);
        stats.variables.insert(id.clone());
        if bytes_in_scope != 0 && !is_constant_member {
            stats.scope_bytes = stats.scope_bytes.saturating_add(bytes_in_scope);
            stats.scope_bytes_covered = stats.scope_bytes_covered.saturating_add(scope_covered);
        }
        if is_constant_member {
            stats.constant_members += 1;
            return;
        }
        stats.with_location += u64::from(has_location);
        if artificial {
            stats.artificial += 1;
            return;
        }
        if is_param {
            stats.params += 1;
            stats.params_with_type += u64::from(has_type);
            stats.params_with_source += u64::from(has_source);
            stats.params_with_location += u64::from(has_location);
        } else {
            stats.locals += 1;
            stats.locals_with_type += u64::from(has_type);
            stats.locals_with_source += u64::from(has_source);
            stats.locals_with_location += u64::from(has_location);
        }
        if function != "/" {
            self.walk.variables.push(Variable {
                function: function.to_string(),
                id,
                name,
                is_param,
                scope_bytes: bytes_in_scope,
                covered: scope_covered,
                ranges,
                inlined: inline_depth > 0,
            });
        }
    }

    /// The bytes two ranges share, on the addresses LLVM reads.
    fn overlap(&self, a: (u64, u64), b: (u64, u64)) -> u64 {
        let to_llvm = |(low, high): (u64, u64)| {
            let start = self.file.llvm_address(low);
            (start, start.wrapping_add(high.wrapping_sub(low)))
        };
        let (a, b) = (to_llvm(a), to_llvm(b));
        let lower = a.0.max(b.0);
        let upper = a.1.min(b.1);
        upper.saturating_sub(lower)
    }
}

/// The coverage bucket of `covered` bytes of `in_scope`.
fn bucket_of(covered: u64, in_scope: u64) -> usize {
    if covered == 0 {
        0
    } else if covered >= in_scope {
        BUCKETS - 1
    } else {
        let percent = (100.0 * covered as f64 / in_scope as f64) as u64;
        (percent / 10) as usize + 1
    }
}

/// Where an expression puts the variable.
pub(crate) fn location_kind(
    expression: super::load::Slice<'_>,
    encoding: gimli::Encoding,
) -> LocationKind {
    let mut ops = gimli::Expression(expression).operations(encoding);
    let mut kind = None;
    while let Ok(Some(op)) = ops.next() {
        match op {
            gimli::Operation::EntryValue { .. } => return LocationKind::EntryValue,
            gimli::Operation::Register { .. } => {
                kind.get_or_insert(LocationKind::Register);
            }
            gimli::Operation::StackValue | gimli::Operation::ImplicitValue { .. } => {
                kind = Some(LocationKind::Computed);
            }
            gimli::Operation::Piece { .. } => {}
            _ => {
                kind.get_or_insert(LocationKind::Memory);
            }
        }
    }
    kind.unwrap_or(LocationKind::Computed)
}
