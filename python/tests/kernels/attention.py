"""Single-head attention with a causal mask, written for allocsim's tests: scores tile by tile on the PE, the mask
by affine_select as NKI's attention samples apply it, softmax along the keys, then probabilities times values."""
import nki
import nki.isa as nisa
import nki.language as nl
import neuronxcc.nki.isa as nisa_v1


@nki.jit
def causal_attention(q, k, v):
    S, D = q.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((S, D), dtype=q.dtype, buffer=nl.shared_hbm)
    kT = nl.ndarray((D, S), dtype=nl.float32, buffer=nl.sbuf)  # keys transposed: [d_head, seqlen]
    for ik in nl.affine_range(S // P):
        k_tile = nl.load(k[ik * P:(ik + 1) * P, :])
        kT[:, ik * P:(ik + 1) * P] = nl.transpose(k_tile)
    i_p, i_f = nl.mgrid[0:P, 0:P]
    for iq in nl.affine_range(S // P):
        q_tile = nl.load(q[iq * P:(iq + 1) * P, :])
        qT = nl.copy(nl.transpose(q_tile))
        scores = nl.ndarray((P, S), dtype=nl.float32, buffer=nl.sbuf)
        for ik in nl.affine_range(S // P):
            qk = nl.matmul(qT, kT[:, ik * P:(ik + 1) * P], transpose_x=True)
            # keep key ik*P + i_f <= query iq*P + i_p
            scores[:, ik * P:(ik + 1) * P] = nisa_v1.affine_select(pred=(iq * P + i_p >= ik * P + i_f),
                                                                  on_true_tile=qk, on_false_value=-9984.0)
        neg_max = nl.negative(nl.max(scores, axis=1))
        exp_scores = nl.ndarray((P, S), dtype=nl.float32, buffer=nl.sbuf)
        row_sum = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=exp_scores, op=nl.exp, data=scores, bias=neg_max, reduce_op=nl.add, reduce_res=row_sum)
        probs = nl.divide(exp_scores, row_sum)
        acc = nl.zeros((P, D), dtype=nl.float32, buffer=nl.psum)
        for ik in nl.affine_range(S // P):
            pT = nl.copy(nl.transpose(probs[:, ik * P:(ik + 1) * P]))
            v_tile = nl.load(v[ik * P:(ik + 1) * P, :])
            acc += nl.matmul(pT, v_tile, transpose_x=True)
        nl.store(out[iq * P:(iq + 1) * P, :], value=nl.copy(acc))
    return out
