fn main() {
    std::process::exit(qrtl_compiler::cli::main())
}
