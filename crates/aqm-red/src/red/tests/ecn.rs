//! ECN: marks instead of early drops, and the hard drop threshold.

use super::*;

#[test]
fn ecn_marks_instead_of_dropping() {
    // Geometric spreading: a draw r picks exactly when r < p_b 2^32.
    let mut base = zheng_kinicki_router();
    base.queue.spreading = Spreading::Geometric;
    let mut ecn = base;
    ecn.queue.ecn = true;
    let mut hard = ecn;
    hard.queue.ecn_drop_th = Some(30);
    let mut low_hard = ecn;
    low_hard.queue.ecn_drop_th = Some(15);
    let profiles = [base, ecn, hard, low_hard].map(|c| RedProfile::new(&c).unwrap());
    // (queue, ecn field, decision with [off, on, hard at max_th, hard at 15]);
    // Supplied(0) always picks in the early region.
    use Decision::*;
    let cases = [
        (5u32, Ecn::Ect0, [Enqueue, Enqueue, Enqueue, Enqueue]),
        (
            20,
            Ecn::NotEct,
            [DropEarly, DropEarly, DropEarly, DropEarly],
        ),
        (20, Ecn::Ect0, [DropEarly, Mark, Mark, DropEarly]),
        (20, Ecn::Ect1, [DropEarly, Mark, Mark, DropEarly]),
        (12, Ecn::Ect1, [DropEarly, Mark, Mark, Mark]),
        (20, Ecn::Ce, [DropEarly, Mark, Mark, DropEarly]),
        (40, Ecn::Ect0, [DropForced, Mark, DropForced, DropForced]),
        (
            40,
            Ecn::NotEct,
            [DropForced, DropForced, DropForced, DropForced],
        ),
    ];
    for (q, e, want) in cases {
        for (i, p) in profiles.iter().enumerate() {
            let mut red = settle(p, q, 20_000);
            let d = red.on_arrival(p, t(0), q, Packet::new(1500, e), &mut Supplied(0));
            assert_eq!(d, want[i], "queue {q}, {e:?}, profile {i}");
        }
    }
    // A full buffer drops ECN-capable packets too (RFC 3168 section 5).
    let mut red = Red::new(&profiles[1], Instant::ZERO);
    assert_eq!(
        red.on_arrival(
            &profiles[1],
            t(0),
            50,
            Packet::new(1500, Ecn::Ect0),
            &mut Supplied(0)
        ),
        DropForced
    );
    // A draw of u32::MAX never picks below p_a = 1.
    let mut red = settle(&profiles[1], 20, 20_000);
    assert_eq!(
        red.on_arrival(
            &profiles[1],
            t(0),
            20,
            Packet::new(1500, Ecn::Ect0),
            &mut Supplied(u32::MAX)
        ),
        Enqueue
    );
}
