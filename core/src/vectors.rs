//! Plain vector algebra for the first article's widgets: sums, scaling, dot product, norm,
//! cosine and angle. Slices of f32 in, `Vec<f32>` out; sums accumulate in f64 so long vectors
//! do not drift, and nothing panics on odd input (mismatched lengths are an error, a zero
//! vector has no direction).

use super::error::{ComputeError, Result};

fn same_length(a: &[f32], b: &[f32]) -> Result<()> {
    if a.len() != b.len() {
        return Err(ComputeError::Invalid(format!(
            "Os vetores têm tamanhos diferentes: {} e {} componentes.",
            a.len(),
            b.len()
        )));
    }
    Ok(())
}

/// a · b = Σ aᵢbᵢ; fails if the lengths differ.
pub fn dot(a: &[f32], b: &[f32]) -> Result<f32> {
    same_length(a, b)?;
    Ok(a.iter().zip(b).map(|(&x, &y)| x as f64 * y as f64).sum::<f64>() as f32)
}

/// ‖a‖ = √(a · a), the Euclidean (L2) length.
pub fn norm(a: &[f32]) -> f32 {
    a.iter().map(|&x| x as f64 * x as f64).sum::<f64>().sqrt() as f32
}

/// a / ‖a‖, the unit vector with a's direction; fails for the zero vector or non-finite values.
pub fn normalize(a: &[f32]) -> Result<Vec<f32>> {
    let n = norm(a);
    if !n.is_finite() {
        return Err(ComputeError::Invalid(
            "O vetor tem um valor não finito: não dá para normalizá-lo.".into(),
        ));
    }
    if n == 0.0 {
        return Err(ComputeError::Invalid(
            "O vetor nulo não tem direção: não dá para normalizá-lo.".into(),
        ));
    }
    Ok(scale(a, 1.0 / n))
}

/// cos θ = a·b / (‖a‖‖b‖), clamped to [−1, 1]; `Ok(None)` when a vector is zero or non-finite
/// (the angle is undefined), an error when the lengths differ.
pub fn cosine(a: &[f32], b: &[f32]) -> Result<Option<f32>> {
    let d = dot(a, b)?;
    let (na, nb) = (norm(a), norm(b));
    let denominator = na * nb;
    if !(d.is_finite() && denominator.is_finite()) || na == 0.0 || nb == 0.0 {
        return Ok(None);
    }
    Ok(Some((d / denominator).clamp(-1.0, 1.0)))
}

/// The angle between a and b in degrees (0 to 180); `Ok(None)` where the cosine is undefined.
pub fn angle_degrees(a: &[f32], b: &[f32]) -> Result<Option<f32>> {
    Ok(cosine(a, b)?.map(|c| c.acos().to_degrees()))
}

/// a + b componentwise; fails if the lengths differ.
pub fn add(a: &[f32], b: &[f32]) -> Result<Vec<f32>> {
    same_length(a, b)?;
    Ok(a.iter().zip(b).map(|(x, y)| x + y).collect())
}

/// −a, the opposite vector.
pub fn negate(a: &[f32]) -> Vec<f32> {
    a.iter().map(|x| -x).collect()
}

/// k·a, every component multiplied by k.
pub fn scale(a: &[f32], k: f32) -> Vec<f32> {
    a.iter().map(|x| k * x).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_of_the_dot_product_follows_the_angle() {
        assert_eq!(angle_degrees(&[1.0, 0.0], &[0.0, 2.0]).unwrap(), Some(90.0));
        assert!(angle_degrees(&[1.0, 0.0], &[1.0, 1.0]).unwrap().unwrap() < 90.0);
        assert!(angle_degrees(&[1.0, 0.0], &[-1.0, 1.0]).unwrap().unwrap() > 90.0);
        assert_eq!(cosine(&[3.0, 4.0], &[6.0, 8.0]).unwrap(), Some(1.0));
    }

    #[test]
    fn degenerate_inputs_are_reported_not_panicked() {
        assert!(dot(&[1.0], &[1.0, 2.0]).is_err());
        assert!(add(&[], &[1.0]).is_err());
        assert_eq!(dot(&[], &[]).unwrap(), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 2.0]).unwrap(), None);
        assert_eq!(cosine(&[f32::NAN], &[1.0]).unwrap(), None);
        let err = normalize(&[0.0, 0.0]).unwrap_err().to_string();
        assert!(err.contains("vetor nulo"), "{err}");
        assert!(normalize(&[f32::INFINITY, 1.0]).is_err());
        let unit = normalize(&[3.0, 4.0]).unwrap();
        assert!((norm(&unit) - 1.0).abs() < 1e-6);
    }
}
