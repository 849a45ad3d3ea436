//! The generator of a large LLVM IR module shaped like clang-19 -O2 -g output.
//!
//! In: a [`GenConfig`] (seed and number of functions). Out: the text of one
//! module: integer and pointer code only (phi loops, switches, guarded
//! divisions, selects, width changes, loads and stores through pointer
//! arguments, calls between generated functions and to external functions),
//! `#dbg_value` records, full debug metadata and the module flags clang sets.
//!
//! Promises: the same config always gives the same text (the only randomness
//! is [`crate::prng::Prng`]); every value a debug record or instruction names
//! is defined in a block that dominates the use; a function only calls
//! functions defined before it, so the call graph has no cycles; the module
//! is accepted by `opt-19 -passes=verify` and `llc-19` (see tests/llvm_accepts.rs).

mod body;
mod ctypes;
mod function;
mod meta;

use std::collections::BTreeSet;

use crate::prng::Prng;
use body::Ty;
use ctypes::{CType, Scalar};
use meta::{Md, MetadataTable};

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Seed of the random choices; the same seed gives the same module.
    pub seed: u64,
    /// Number of function definitions; the line count grows in proportion
    /// (about 150 lines per function).
    pub functions: usize,
}

impl Default for GenConfig {
    /// The benchmark's standard module: seed 1, 400 functions (about 60k lines).
    fn default() -> Self {
        GenConfig {
            seed: 1,
            functions: 400,
        }
    }
}

/// The name of the source file the module claims to come from.
pub const SOURCE_NAME: &str = "bench_module.c";

/// Generates the module described by `config` as LLVM IR text.
pub fn generate(config: &GenConfig) -> String {
    let mut state = ModuleState::new(config.seed);
    let signatures: Vec<Signature> = (0..config.functions)
        .map(|index| Signature::random(&mut state.rng, index))
        .collect();
    let mut out = format!(
        "; ModuleID = '{SOURCE_NAME}'\nsource_filename = \"{SOURCE_NAME}\"\n\
         target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"\n\
         target triple = \"x86_64-pc-linux-gnu\"\n"
    );
    for index in 0..signatures.len() {
        out.push_str("\n; Function Attrs: nounwind uwtable\n");
        function::generate_function(&mut state, &signatures, index, &mut out);
    }
    state.print_declarations(&mut out);
    state.print_trailer(&mut out);
    out
}

/// The type of a generated function.
#[derive(Clone, Debug)]
pub(crate) struct Signature {
    name: String,
    /// `None` for `void`.
    ret: Option<Scalar>,
    params: Vec<CType>,
}

impl Signature {
    fn random(rng: &mut Prng, index: usize) -> Self {
        const WORDS: [&str; 12] = [
            "mix", "scan", "fold", "pack", "step", "hash", "clamp", "count", "blend", "walk",
            "split", "tally",
        ];
        let name = format!("{}_{index:04}", rng.pick(&WORDS));
        let ret = match rng.range(0, 9) {
            0 => None,
            1 => Some(Scalar::Long),
            2 => Some(Scalar::UInt),
            3 => Some(*rng.pick(&[Scalar::Char, Scalar::UChar, Scalar::Short, Scalar::UShort])),
            _ => Some(Scalar::Int),
        };
        let param_count = rng.range(1, 5) as usize;
        let mut params = Vec::new();
        for position in 0..param_count {
            // Many functions take an array first and a count after it, as C code does.
            let ctype = if position == 0 && rng.chance(55) {
                CType::Ptr(*rng.pick(&[
                    Scalar::Int,
                    Scalar::Int,
                    Scalar::Long,
                    Scalar::UChar,
                    Scalar::Short,
                ]))
            } else if rng.chance(60) {
                CType::Scalar(Scalar::Int)
            } else {
                CType::Scalar(*rng.pick(&Scalar::ALL))
            };
            params.push(ctype);
        }
        Signature { name, ret, params }
    }
}

/// An external function the generated code calls (declared, never defined).
struct External {
    name: &'static str,
    ret: Option<Scalar>,
    params: &'static [CType],
}

const EXTERNALS: [External; 3] = [
    External {
        name: "ext_sink",
        ret: None,
        params: &[CType::Scalar(Scalar::Int)],
    },
    External {
        name: "ext_hash",
        ret: Some(Scalar::Long),
        params: &[CType::Scalar(Scalar::Long), CType::Scalar(Scalar::Int)],
    },
    External {
        name: "ext_read",
        ret: Some(Scalar::Int),
        params: &[CType::Ptr(Scalar::Int), CType::Scalar(Scalar::Int)],
    },
];

/// Everything shared by the functions of one module while it is generated.
pub(crate) struct ModuleState {
    rng: Prng,
    md: MetadataTable,
    compile_unit: Md,
    file: Md,
    /// Next free source line: each function gets its own range of lines.
    next_line: u32,
    /// Intrinsic declarations used so far (`declare` text), printed sorted.
    intrinsics: BTreeSet<String>,
    /// Declaration subprogram of each external function, once it is called.
    externals_used: [Option<Md>; EXTERNALS.len()],
}

impl ModuleState {
    fn new(seed: u64) -> Self {
        let mut md = MetadataTable::new();
        let compile_unit = md.reserve();
        let file = md.fresh(format!(
            "!DIFile(filename: \"{SOURCE_NAME}\", directory: \".\")"
        ));
        md.set(
            compile_unit,
            format!(
                "distinct !DICompileUnit(language: DW_LANG_C11, file: {file}, producer: \"dwarfsmith-bench generator\", \
                 isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)"
            ),
        );
        ModuleState {
            rng: Prng::new(seed),
            md,
            compile_unit,
            file,
            next_line: 1,
            intrinsics: BTreeSet::new(),
            externals_used: [None; EXTERNALS.len()],
        }
    }

    /// The declaration subprogram of external `index`, made on first use.
    fn external_subprogram(&mut self, index: usize) -> Md {
        if let Some(subprogram) = self.externals_used[index] {
            return subprogram;
        }
        let external = &EXTERNALS[index];
        let mut types = vec![match external.ret {
            Some(scalar) => ctypes::di_type(&mut self.md, CType::Scalar(scalar)).to_string(),
            None => "null".to_string(),
        }];
        for &param in external.params {
            types.push(ctypes::di_type(&mut self.md, param).to_string());
        }
        let type_list = self.md.intern(format!("!{{{}}}", types.join(", ")));
        let subroutine = self
            .md
            .intern(format!("!DISubroutineType(types: {type_list})"));
        let line = self.next_line;
        self.next_line += 1;
        let subprogram = self.md.fresh(format!(
            "!DISubprogram(name: \"{}\", scope: {file}, file: {file}, line: {line}, type: {subroutine}, \
             flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)",
            external.name,
            file = self.file,
        ));
        self.externals_used[index] = Some(subprogram);
        subprogram
    }

    /// Records that intrinsic `name` (e.g. `llvm.smax.i32`) of type `ty` is used.
    fn use_min_max_intrinsic(&mut self, name: &str, ty: Ty) {
        let ty = ty.name();
        self.intrinsics
            .insert(format!("declare {ty} @{name}({ty}, {ty}) #2"));
    }

    /// Records that `llvm.abs` of type `ty` is used.
    fn use_abs_intrinsic(&mut self, ty: Ty) {
        let ty = ty.name();
        self.intrinsics
            .insert(format!("declare {ty} @llvm.abs.{ty}({ty}, i1 immarg) #2"));
    }

    fn print_declarations(&self, out: &mut String) {
        for (index, external) in EXTERNALS.iter().enumerate() {
            let Some(subprogram) = self.externals_used[index] else {
                continue;
            };
            let ret = match external.ret {
                Some(scalar) => format!("{}{}", scalar.extension_attr(), scalar.ty().name()),
                None => "void".to_string(),
            };
            let params: Vec<String> = external
                .params
                .iter()
                .map(|param| match param {
                    CType::Scalar(scalar) => {
                        format!("{} noundef {}", scalar.ty().name(), scalar.extension_attr())
                            .trim_end()
                            .to_string()
                    }
                    CType::Ptr(_) => "ptr noundef".to_string(),
                })
                .collect();
            out.push_str(&format!(
                "\ndeclare !dbg {subprogram} {ret} @{}({}) local_unnamed_addr #1\n",
                external.name,
                params.join(", ")
            ));
        }
        for declaration in &self.intrinsics {
            out.push_str("\n; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)\n");
            out.push_str(declaration);
            out.push('\n');
        }
    }

    fn print_trailer(&mut self, out: &mut String) {
        const TARGET: &str = "\"no-trapping-math\"=\"true\" \"stack-protector-buffer-size\"=\"8\" \"target-cpu\"=\"x86-64\" \
            \"target-features\"=\"+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87\" \"tune-cpu\"=\"generic\"";
        out.push_str(&format!(
            "\nattributes #0 = {{ nounwind uwtable \"min-legal-vector-width\"=\"0\" {TARGET} }}\n\
             attributes #1 = {{ {TARGET} }}\n\
             attributes #2 = {{ nocallback nofree nosync nounwind speculatable willreturn memory(none) }}\n"
        ));
        let flags: Vec<Md> = [
            "!{i32 7, !\"Dwarf Version\", i32 5}",
            "!{i32 2, !\"Debug Info Version\", i32 3}",
            "!{i32 1, !\"wchar_size\", i32 4}",
            "!{i32 8, !\"PIC Level\", i32 2}",
            "!{i32 7, !\"PIE Level\", i32 2}",
            "!{i32 7, !\"uwtable\", i32 2}",
        ]
        .iter()
        .map(|flag| self.md.intern(flag.to_string()))
        .collect();
        let flags: Vec<String> = flags.iter().map(Md::to_string).collect();
        out.push_str(&format!(
            "\n!llvm.dbg.cu = !{{{}}}\n!llvm.module.flags = !{{{}}}\n\n",
            self.compile_unit,
            flags.join(", ")
        ));
        self.md.print(out);
    }
}
