"""One step of the batched search, compiled: select leaves for every game (PUCT, or the
Gumbel root's schedule), and, once the evaluator has scored them, expand and back up each,
with the threat solvers or Hex's connection knowledge judging the leaf first.
`pipeline.search.mcts.BatchedMCTS` drives the steps."""

from __future__ import annotations

from numba import njit

from pipeline.games.gomoku import makes_line
from pipeline.games.kernels import candidate_mask, legal_mask, observe
from pipeline.games.layout import GOMOKU, HEX, KIND, TO_MOVE
from pipeline.search.forced import LOSS, OPEN, TACTICS_DEFER, TACTICS_OFF, WIN, tactical_verdict_into
from pipeline.search.gumbel import descend_from, root_child
from pipeline.search.hex_forced import BRIDGE_SHARE, HEX_BRIDGE, HEX_CONNECT, bridge_replies, hex_verdict
from pipeline.search.tree import (
    FIRST,
    FULL,
    PENDING,
    PUCT,
    RAW,
    SOLVED_WIN,
    TERMINAL,
    VISITS,
    backup,
    backup_terminal,
    boost_children,
    descend,
    expand,
    propagate_proof,
    prove_any,
    prove_lost,
    prove_move,
    revert,
)


@njit(cache=True, nogil=True)
def select_batch(
    node_int,
    node_float,
    roots,
    active,
    target,
    leaf_states,
    obs,
    leaf_game,
    leaf_node,
    per_game,
    c_puct,
    fpu_reduction,
    root_fpu_reduction,
    virtual_loss,
    prove,
    gumbel,
):
    """Select up to `per_game` leaves of every active game whose root has fewer than
    `target` visits; write their positions, observations, games and nodes from slot 0 on,
    and return how many. Terminal leaves are backed up at once (proven with `prove`).
    A game whose Gumbel root is set up (`gumbel.ready`) takes its root child from the
    halving schedule and descends below it by the paper's rule."""
    vl = virtual_loss
    n = 0
    for g in range(roots.shape[0]):
        if not active[g] or node_int[g, 0, TERMINAL] != 0:
            continue
        for _ in range(per_game):
            if node_int[g, 0, VISITS] >= target[g]:
                break
            slot = -1
            if gumbel.ready[g]:
                k = gumbel.sim[g]
                considered = gumbel.schedule[g, k] if k < gumbel.length[g] else -1
                child = root_child(
                    node_int,
                    node_float,
                    g,
                    gumbel.base[g],
                    gumbel.count[g],
                    considered,
                    gumbel.c_visit,
                    gumbel.c_scale,
                    gumbel.buf,
                )
                slot = child - node_int[g, 0, FIRST]
                gumbel.count[g, slot] += 1
                gumbel.sim[g] += 1
                leaf = descend_from(
                    node_int,
                    node_float,
                    g,
                    roots[g],
                    leaf_states[n],
                    child,
                    gumbel.c_visit,
                    gumbel.c_scale,
                    vl,
                    gumbel.buf,
                )
            else:
                leaf = descend(
                    node_int,
                    node_float,
                    g,
                    roots[g],
                    leaf_states[n],
                    PUCT,
                    c_puct,
                    fpu_reduction=fpu_reduction,
                    root_fpu_reduction=root_fpu_reduction,
                    virtual_loss=vl,
                )
            if node_int[g, leaf, TERMINAL] != 0:
                if prove:
                    propagate_proof(node_int, node_float, g, leaf, prove_root=False)
                backup_terminal(node_int, node_float, g, leaf, vl)
                continue
            if node_int[g, leaf, PENDING] != 0:
                # Virtual loss did not steer this descent away from a leaf already in the
                # batch: give the visit back and let this game wait for the next step.
                revert(node_int, node_float, g, leaf, vl)
                if slot >= 0:
                    gumbel.count[g, slot] -= 1
                    gumbel.sim[g] -= 1
                break
            node_int[g, leaf, PENDING] = 1
            observe(leaf_states[n], obs[n])
            leaf_game[n] = g
            leaf_node[n] = leaf
            n += 1
    return n


@njit(cache=True, nogil=True)
def expand_and_backup(
    node_int,
    node_float,
    size,
    leaf_states,
    leaf_game,
    leaf_node,
    start,
    n,
    priors,
    values,
    rng,
    mask,
    vl,
    guided,
    prove,
    tactics,
    tactics_nodes,
    tactics_depth,
    table,
    null_table,
    pv,
    hex_flags,
    marks,
    scratch,
    root_nodes=0,
    defer=False,
):
    """Expand and back up leaves start..n-1. Returns n, or the first leaf whose game's
    row is full: the caller grows the tree and calls again from there. With `tactics`,
    the threat solvers judge each leaf first (`forced.tactical_verdict_into`, in
    `scratch`, the solvers' room made once per search: `pipeline.tactics.lines.scratch`); with
    `hex_flags`, Hex's connection knowledge (`hex_forced.hex_verdict`; `marks` is scratch
    of length cells for the bridge replies). A proven leaf backs up its exact value
    instead of the net's. The root (one expansion a search) is judged with `root_nodes`
    when that is larger: a win the tree's budget misses there is still played, as the
    second stone of a Connect6 turn whose first stone a proof chose."""
    narrowed = tactics != TACTICS_OFF or hex_flags != 0
    for i in range(start, n):
        g = leaf_game[i]
        node = leaf_node[i]
        state = leaf_states[i]
        verdict = OPEN
        win = -1
        hex_value = 0.0
        if narrowed:
            if guided:
                candidate_mask(state, mask)
            else:
                legal_mask(state, mask)
        if tactics != TACTICS_OFF:
            budget = root_nodes if node == 0 and root_nodes > tactics_nodes else tactics_nodes
            mode = tactics | TACTICS_DEFER if defer and node != 0 else tactics
            verdict, win = tactical_verdict_into(
                state, mask, mode, budget, tactics_depth, table, null_table, pv, scratch
            )
            if verdict == LOSS:
                legal_mask(state, mask)  # the node is proven; a root still needs its moves
        elif hex_flags != 0:
            # Hex keeps its narrowed moves even when lost: they are the best tries.
            verdict, win, hex_value = hex_verdict(state, mask, hex_flags)
        added = expand(
            node_int,
            node_float,
            size,
            g,
            node,
            state,
            priors[i],
            rng,
            mask,
            use_policy=True,
            guided=guided,
            shuffle=False,
            # In Gomoku the verdict's win is the winning cell itself when there is one (the
            # solver looks there first); Connect6's may be a two-stone pair, so it still sweeps.
            # Hex's connection verdict checks the winning cells first, so does the same.
            prove=prove and (tactics == TACTICS_OFF or state[KIND] != GOMOKU) and (hex_flags & HEX_CONNECT) == 0,
            prove_root=False,
            given_mask=narrowed,
        )
        if added == FULL:
            return i
        node_int[g, node, PENDING] = 0
        node_float[g, node, RAW] = values[i]  # for the player to move: Gumbel's mixed value
        if verdict == WIN and win < 0:
            prove_any(node_int, node_float, g, node, SOLVED_WIN, prove_root=False)
        elif verdict == WIN:
            if state[KIND] == HEX:
                value = hex_value
            else:
                value = 1.0 if makes_line(state, win, state[TO_MOVE] + 1) else SOLVED_WIN
            prove_move(node_int, node_float, g, node, win, value, prove_root=False)
        elif verdict == LOSS:
            prove_lost(node_int, node_float, g, node, prove_root=False)
        elif (hex_flags & HEX_BRIDGE) != 0 and bridge_replies(state, marks) > 0:
            boost_children(node_int, node_float, g, node, marks, BRIDGE_SHARE)
        if narrowed and node_int[g, node, TERMINAL] != 0:
            backup_terminal(node_int, node_float, g, node, vl)
        else:
            backup(node_int, node_float, g, node, values[i], state[TO_MOVE], vl)
    return n
