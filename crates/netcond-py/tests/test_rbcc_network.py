import pickle

import pytest

import netcond


def test_two_link_chain_with_three_flows():
    # Links A (10 Mbit/s) and B (4 Mbit/s); flow x crosses both, y only A,
    # z only B. B is the tighter link: x and z share it, 2 Mbit/s each. On A,
    # y takes what x leaves: 10 - 2 = 8 Mbit/s.
    net = netcond.RbccNetwork(
        links={"A": "10mbit", "B": 4_000_000},
        flows={"x": {"data": ["A", "B"]}, "y": {"data": ["A"]}, "z": {"data": ["B"]}},
        ack_bytes=0,
    )
    assert net.solve() == {"x": 2e6, "y": 8e6, "z": 2e6}
    assert net.solve(raw=True) == {"x": 2_000_000 << 16, "y": 8_000_000 << 16, "z": 2_000_000 << 16}


def test_a_requested_rate_below_the_share_frees_capacity():
    # z asks for 1 Mbit/s only: x gets the other 3 Mbit/s of B, y 7 of A.
    net = netcond.RbccNetwork(links=["10mbit", "4mbit"], ack_bytes=0)
    x = net.add_flow(data=[0, 1])
    y = net.add_flow(data=[0])
    z = net.add_flow(data=[1], requested="1mbit")
    assert (x, y, z) == (0, 1, 2)
    assert net.solve() == {0: 3e6, 1: 7e6, 2: 1e6}
    assert len(net) == 3 and net.flows == [0, 1, 2]
    assert net.links == {0: 1e7, 1: 4e6}


def test_equals_the_rust_solver_on_its_edge_case():
    # rbcc-rate's tests/convergence.rs `solver_edges`: the same network gives
    # the Rust solver's 77, 0 and 1000 bit/s.
    net = netcond.RbccNetwork(links={"a": 1000, "z": 0})
    net.add_flow(requested=77)
    net.add_flow(data=["z"], acks=["a"])
    net.add_flow(data=["a"], acks=["z"])
    assert net.solve() == {0: 77.0, 1: 0.0, 2: 1000.0}


def test_an_unlimited_flow_on_no_link_is_infinite():
    net = netcond.RbccNetwork(flows=[{}])
    assert net.solve() == {0: float("inf")}


def test_ack_load_lowers_the_data_rates():
    # One link, one flow each way: each flow's ACKs (40 bytes per 1500) cross
    # the link the other's data uses.
    links = {"ab": "1mbit", "ba": "1mbit"}
    flows = {"f": {"data": ["ab"], "acks": ["ba"]}, "g": {"data": ["ba"], "acks": ["ab"]}}
    outside = netcond.RbccNetwork(links=links, flows=flows).solve()
    # x = C - (40/1500) x: x = C 1500/1540.
    assert outside["f"] == pytest.approx(1e6 * 1500 / 1540, abs=1)
    coupled = netcond.RbccNetwork(links=links, flows=flows, ack_model="coupled").solve()
    assert coupled["f"] == pytest.approx(1e6 * 1500 / 1540, abs=1)
    assert netcond.RbccNetwork(links=links, flows=flows, ack_bytes=0).solve() == {"f": 1e6, "g": 1e6}


def test_bad_input_is_a_value_error():
    with pytest.raises(ValueError, match="unknown link 'C'"):
        netcond.RbccNetwork(links={"A": 1}, flows={"x": {"data": ["C"]}})
    with pytest.raises(ValueError, match="given twice"):
        net = netcond.RbccNetwork(links={"A": 1})
        net.add_link(5, name="A")
    with pytest.raises(ValueError, match="given twice"):
        net = netcond.RbccNetwork(links=[1], flows=[{}])
        net.add_flow(name=0)
    with pytest.raises(ValueError, match="at most 64 links"):
        netcond.RbccNetwork(links=[1] * 65)
    with pytest.raises(ValueError, match="at most 256 flows"):
        netcond.RbccNetwork(flows=[{}] * 257)
    with pytest.raises(ValueError, match="ack_model"):
        netcond.RbccNetwork(ack_model="none")
    with pytest.raises(ValueError, match='not "rate"'):
        netcond.RbccNetwork(flows=[{"rate": 1}])
    with pytest.raises(ValueError, match="not a string"):
        netcond.RbccNetwork(links={"A": 1}, flows=[{"data": "A"}])
    with pytest.raises(ValueError):
        netcond.RbccNetwork(links=[-1])
    with pytest.raises(ValueError):
        netcond.RbccNetwork(links=["fast"])
    assert "links=64" in repr(netcond.RbccNetwork(links=[1] * 64))


def test_a_network_pickles_with_its_names_and_settings():
    links = {"A": "10mbit", ("B", 2): 4_000_000, "C": "1mbit"}
    # x's ACKs cross C, which flow 7's data uses.
    flows = {"x": {"data": ["A", ("B", 2)], "acks": ["C"], "requested": "3mbit"}, 7: {"data": ["C"]}}
    net = netcond.RbccNetwork(links=links, flows=flows, ack_bytes=64, data_bytes=1000, ack_model="coupled")
    back = pickle.loads(pickle.dumps(net))
    assert repr(back) == repr(net) and back.ack_model == "coupled"
    assert back.links == net.links and back.flows == ["x", 7]
    assert back.solve(raw=True) == net.solve(raw=True)
    # The settings count: the same network with the default ACK settings
    # gives flow 7 another rate.
    other = netcond.RbccNetwork(links=links, flows=flows)
    assert other.solve(raw=True)[7] != net.solve(raw=True)[7]
