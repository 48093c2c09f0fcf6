"""Layer normalization in the form of NKI's layernorm tutorial (v1), written for allocsim's tests."""
import nki
import nki.language as nl


@nki.jit
def layernorm(input_tensor, gamma_vector, beta_vector, epsilon=1e-5):
    R, N = input_tensor.shape
    P = nl.tile_size.pmax
    output_tensor = nl.ndarray((R, N), dtype=input_tensor.dtype, buffer=nl.shared_hbm)
    # gamma and beta on every partition, one row each
    gamma_bcast = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    beta_bcast = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    for p in nl.affine_range(P):
        gamma_bcast[p, :] = nl.load(gamma_vector[0, :])
        beta_bcast[p, :] = nl.load(beta_vector[0, :])
    for i in nl.affine_range(R // P):
        input_sb = nl.load(input_tensor[i * P:(i + 1) * P, :])
        mean = nl.mean(input_sb, axis=1)
        mean_sq = nl.mean(nl.square(input_sb), axis=1)
        var = mean_sq - mean * mean
        rstd = nl.rsqrt(var + epsilon)
        shifted = input_sb - mean
        output_sb = shifted * rstd * gamma_bcast + beta_bcast
        nl.store(output_tensor[i * P:(i + 1) * P, :], value=output_sb)
    return output_tensor
