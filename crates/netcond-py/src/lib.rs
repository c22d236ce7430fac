//! Python bindings of netcond (module `netcond._netcond`, re-exported by the
//! `netcond` package).

mod aecn;
mod ared;
mod args;
mod bulk;
mod codel;
mod dualpi2;
mod fq_codel;
mod fq_pie;
mod length;
mod markers;
mod pcn;
mod pie;
mod policer;
mod probe;
mod ras;
mod ras_green;
mod ras_metered;
mod rbcc;
mod rbcc_network;
mod rcp;
mod red;
mod renamed;
mod rio;
mod shared;
mod sim;
mod tbf;

use pyo3::prelude::*;

#[pymodule]
fn _netcond(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    markers::register(m)?;
    length::register(m)?;
    codel::register(m)?;
    fq_codel::register(m)?;
    fq_pie::register(m)?;
    dualpi2::register(m)?;
    pcn::register(m)?;
    pie::register(m)?;
    policer::register(m)?;
    ras::register(m)?;
    ras_green::register(m)?;
    ras_metered::register(m)?;
    rbcc::register(m)?;
    rbcc_network::register(m)?;
    rcp::register(m)?;
    red::register(m)?;
    rio::register(m)?;
    aecn::register(m)?;
    ared::register(m)?;
    tbf::register(m)?;
    sim::register(m)?;
    probe::register(m)?;
    Ok(())
}
