//! The engine's version for result keys: the crate version and a digest of the sources that
//! decide what a run returns (this crate's and lossytcp-sim's), so that a store never serves
//! a run the current engine would compute differently. The digest is of paths and bytes, in
//! path order, with SHA-256: the same sources give the same key on every machine.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let sim = here.join("../lossytcp-sim");
    let mut hasher = Sha256::new();
    for (root, label) in [(&sim, "sim"), (&here, "py")] {
        let src = root.join("src");
        println!("cargo:rerun-if-changed={}", src.display());
        println!(
            "cargo:rerun-if-changed={}",
            root.join("Cargo.toml").display()
        );
        hasher.update(std::fs::read(root.join("Cargo.toml")).expect("Cargo.toml"));
        let mut list = Vec::new();
        files(&src, &mut list);
        for f in list {
            let rel = f.strip_prefix(root).expect("under its root");
            hasher.update(format!("{label}/{}\0", rel.display()).as_bytes());
            hasher.update(std::fs::read(&f).expect("source file"));
        }
    }
    let digest = hasher.finalize();
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=LOSSYTCP_ENGINE_SOURCE_DIGEST={hex}");
}
