use super::*;

fn spec() -> ProjectSpec {
    ProjectSpec {
        name: "t".into(),
        top: "t_top".into(),
        rtl: vec![(
            "t_top.v".into(),
            "module t_top(input clk); endmodule\n".into(),
        )],
        clock_mhz: 125.0,
        clock_port: "clk".into(),
        reset_port: String::new(),
        ports: vec![Port {
            name: "clk".into(),
            dir: PortDir::Input,
            width: 1,
            description: "clock".into(),
        }],
        manifest_extra: Value::Null,
        readme_extra: String::new(),
    }
}

#[test]
fn decimals() {
    assert_eq!(format_decimal(4.0), "4");
    assert_eq!(format_decimal(1000.0 / 300.0), "3.333");
    assert_eq!(format_decimal(2.5), "2.5");
    assert_eq!(period_ns(125.0), "8");
    assert_eq!(period_ns(156.25), "6.4");
}

#[test]
fn invalid_specs_are_rejected() {
    let dir = Path::new("/nonexistent/qrtl-project-test");
    let check = |f: &dyn Fn(&mut ProjectSpec), needle: &str| {
        let mut s = spec();
        f(&mut s);
        match write_project(dir, &s) {
            Err(ProjectError::InvalidSpec { path, message }) => {
                assert_eq!(path, dir);
                assert!(message.contains(needle), "{message}");
            }
            other => panic!("expected InvalidSpec({needle}), got {other:?}"),
        }
    };
    check(&|s| s.name = "a b".into(), "project name");
    check(&|s| s.top = "1x".into(), "top");
    check(&|s| s.clock_mhz = 0.0, "clock_mhz");
    check(&|s| s.clock_port = "clock".into(), "clock `clock`");
    check(&|s| s.reset_port = "rst".into(), "reset `rst`");
    check(&|s| s.rtl[0].0 = "../x.v".into(), "plain");
    check(&|s| s.rtl.clear(), "no RTL");
    check(&|s| s.ports[0].width = 0, "width 0");
    check(&|s| s.manifest_extra = json!([1]), "manifest_extra");
}

#[test]
fn io_errors_name_the_path() {
    // A regular file where the project directory should be.
    let file = std::env::temp_dir().join(format!("qrtl-project-file-{}", std::process::id()));
    std::fs::write(&file, "x").unwrap();
    let err = write_project(&file, &spec()).unwrap_err();
    std::fs::remove_file(&file).unwrap();
    match &err {
        ProjectError::Io { path, .. } => assert!(path.starts_with(&file), "{err}"),
        other => panic!("expected Io, got {other:?}"),
    }
    assert!(err.to_string().contains(&*file.to_string_lossy()));
}

#[test]
fn manifest_extra_clash_is_an_error() {
    let mut s = spec();
    s.manifest_extra = json!({"top": "other"});
    let dir = std::env::temp_dir().join(format!("qrtl-project-clash-{}", std::process::id()));
    let err = write_project(&dir, &s).unwrap_err();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(err.to_string().contains("clashes"), "{err}");
}

#[test]
fn rewriting_a_project_leaves_unchanged_files_untouched() {
    let dir = std::env::temp_dir().join(format!("qrtl-project-same-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    write_project(&dir, &spec()).unwrap();
    let rtl = dir.join("rtl/t_top.v");
    let files_f = dir.join("files.f");
    // Mark both files: an unchanged rewrite must not touch them at all.
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    for p in [&rtl, &files_f] {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    write_project(&dir, &spec()).unwrap();
    for p in [&rtl, &files_f] {
        assert_eq!(
            std::fs::metadata(p).unwrap().modified().unwrap(),
            old,
            "{}",
            p.display()
        );
    }
    // A changed file is written.
    let mut s = spec();
    s.rtl[0].1 = "module t_top(input clk); wire w; endmodule\n".into();
    write_project(&dir, &s).unwrap();
    assert_eq!(std::fs::read_to_string(&rtl).unwrap(), s.rtl[0].1);
    assert_ne!(std::fs::metadata(&rtl).unwrap().modified().unwrap(), old);
    std::fs::remove_dir_all(&dir).unwrap();
}
