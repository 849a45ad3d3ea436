//! The target gate: code generation serves x86-64 ELF (System V ABI) only.
//!
//! In: a parsed module's `target triple` and `target datalayout`. Out: `Ok`,
//! or an error naming the triple or the datalayout component at its
//! file:line:col. Rules:
//! - no triple (or an empty one): the host, x86-64 Linux;
//! - a triple is accepted when its architecture is `x86_64` (or `amd64`)
//!   and every other component names an ELF System V system
//!   ([`ELF_COMPONENTS`], version suffixes such as `freebsd14.0` allowed);
//!   anything else (i686, aarch64, windows, darwin, the x32 ABI, ...) is
//!   refused, since its objects or calling convention differ from ours;
//! - no datalayout (or an empty one): the target's, which is ours; a given
//!   datalayout must be little-endian and give `i64` 8-byte alignment, and
//!   each of its components must be one whose meaning matches what
//!   [`crate::ir`]'s layout code computes ([`LAYOUT_COMPONENTS`]).

use crate::error::{Diagnostic, Pos};
use crate::ir::Module;

/// Triple components (after the architecture) of x86-64 ELF System V systems.
const ELF_COMPONENTS: &[&str] = &[
    "pc",
    "unknown",
    "linux",
    "gnu",
    "musl",
    "none",
    "elf",
    "redhat",
    "suse",
    "freebsd",
    "netbsd",
    "openbsd",
    "dragonfly",
];

/// Datalayout components whose meaning matches the x86-64 ELF layout the
/// IR layout code implements (`i128:64` is clang-14's spelling).
const LAYOUT_COMPONENTS: &[&str] = &[
    "e",
    "m:e",
    "p:64:64",
    "p:64:64:64",
    "p270:32:32",
    "p271:32:32",
    "p272:64:64",
    "i1:8",
    "i8:8",
    "i16:16",
    "i32:32",
    "i64:64",
    "i128:128",
    "f32:32",
    "f64:64",
    "f80:128",
    "f128:128",
    "n8:16:32:64",
    "S128",
];

/// Checks the module's triple and datalayout; `file` names the input.
pub fn check_target(module: &Module, file: &str) -> Result<(), Diagnostic> {
    let error = |pos: Pos, message: String| Diagnostic {
        file: file.to_string(),
        pos,
        message,
    };
    if let Some(triple) = module.triple.as_deref().filter(|t| !t.is_empty()) {
        if !is_x86_64_elf(triple) {
            return Err(error(
                module.triple_pos,
                format!(
                    "unsupported target triple \"{triple}\": dwarfsmith generates x86-64 ELF \
                     objects for the System V ABI (e.g. x86_64-pc-linux-gnu, x86_64-unknown-none-elf)"
                ),
            ));
        }
    }
    if let Some(layout) = module.datalayout.as_deref().filter(|l| !l.is_empty()) {
        let components: Vec<&str> = layout.split('-').collect();
        let wrong = components
            .iter()
            .find(|c| !LAYOUT_COMPONENTS.contains(c))
            .map(|c| format!("'{c}'"))
            .or_else(|| (!components.contains(&"e")).then(|| "no 'e' (little-endian)".into()))
            .or_else(|| (!components.contains(&"i64:64")).then(|| "no 'i64:64'".into()));
        if let Some(wrong) = wrong {
            return Err(error(
                module.datalayout_pos,
                format!(
                    "unsupported target datalayout \"{layout}\": {wrong} does not describe x86-64 ELF"
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a triple names x86-64 with ELF objects and the System V ABI.
fn is_x86_64_elf(triple: &str) -> bool {
    let mut parts = triple.split('-');
    let arch_ok = matches!(parts.next(), Some("x86_64" | "amd64"));
    arch_ok
        && parts.all(|part| {
            let name = part.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
            ELF_COMPONENTS.contains(&name)
        })
}

#[cfg(test)]
mod tests {
    use super::is_x86_64_elf;

    #[test]
    fn elf_triples_are_told_from_others() {
        for good in [
            "x86_64-pc-linux-gnu",
            "x86_64-unknown-linux-gnu",
            "x86_64-unknown-none-elf",
            "x86_64-linux",
            "x86_64-linux-gnu",
            "x86_64-unknown-linux-musl",
            "x86_64-unknown-freebsd14.0",
            "amd64-unknown-openbsd",
            "x86_64",
        ] {
            assert!(is_x86_64_elf(good), "{good}");
        }
        for bad in [
            "i686-pc-linux-gnu",
            "x86_64-pc-windows-msvc",
            "x86_64-w64-windows-gnu",
            "x86_64-pc-cygwin",
            "aarch64-unknown-linux-gnu",
            "x86_64-apple-macosx14.0.0",
            "x86_64-unknown-linux-gnux32",
            "x86_64-unknown-uefi",
            "x86_64-",
        ] {
            assert!(!is_x86_64_elf(bad), "{bad}");
        }
    }
}
