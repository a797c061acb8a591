//! Generated project files (constraints, scripts, FuseSoC core, manifest).
