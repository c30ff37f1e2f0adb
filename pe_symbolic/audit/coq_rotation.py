r"""The rotation's tolerances as Coq theorems: a rotated pair's error vector (``output``), from
the table's construction and the rotation's arithmetic, over Flocq's formats.

:data:`PRELUDE_ROTATION` proves, once, the lemmas every such theorem uses (checked by Coq with
the rest: a wrong lemma can only make a theorem fail):

* ``pe_cs_vec`` -- ``|(cos A, sin A) - (cos a, sin a)| <= |A - a|`` (a table's angle error is a
  rotation: its vector is no longer than the angle error, not ``sqrt 2`` times it), and
  ``pe_cs_vec2`` (``<= 2``);
* ``pe_chain_cast`` / ``pe_chain_mul`` -- the error model of a chain of roundings (a cast, or
  a product by a constant then a rounding: the attention factor), composed;
* ``pe_table_vec`` -- the table ``(T cl, T sl)`` against ``af (cos a, sin a)`` as a vector:
  ``k Va + |k - af| + k h L + w k (1 + h L) + h eta``, and its modulus;
* ``pe_prod_err`` (both products of a coordinate rounded: ``h u X Cm + 2 h e``),
  ``pe_fma_cos_err`` / ``pe_fma_sin_err`` (an FMA: ``u X Cm + h e``), ``pe_vec_err`` (both
  components of a vector rounded: ``u N + h e``);
* ``pe_rot_chain`` -- the rotated pair's error: ``X Tv + P + (u (X Cm + P) + h e) + (v (...) + h f)``
  for the table's error ``Tv``, the products' ``P``, the sum's and the store's roundings.

``h`` is a dyadic just above ``sqrt 2`` (``h * h >= 2``). :func:`output_theorem_for` states one
recipe's output bound from its rounding sequence, with the numbers
:func:`pe_symbolic.audit.bounds.derived_bounds` computed, and checks first, in exact
arithmetic, that they satisfy the lemmas' side condition (a bound the derivation does not
reach is refused here, before Coq is asked).
"""

from __future__ import annotations

from fractions import Fraction

from .coq_common import FORMATS, RND, BoundTheorem, bpow, dyadic, eta, sqrt_up, unit_roundoff
from .emulate import PRECISION, Emulation
from .rounding import FAST_TRIG_ERROR

__all__ = ["PRELUDE_ROTATION", "SQRT2_UP", "output_theorem_for", "score_theorem_for", "table_chain"]

#: A dyadic just above sqrt 2 (within 2**-48): ``h`` of the lemmas (Gappa proves ``2 <= h * h``).
SQRT2_UP = sqrt_up(Fraction(2), 48)

#: The lemmas of the rotation's theorems (see the module docstring).
PRELUDE_ROTATION = r"""
(* pe_symbolic.audit.coq_rotation: the rotation's lemmas. *)
(* Non-negative constants: sums and products of numbers, powers of two and absolute values. *)
Ltac pe_pos := repeat match goal with
  | |- 0 <= _ + _ => apply Rplus_le_le_0_compat
  | |- 0 <= _ * _ => apply Rmult_le_pos
  | |- 0 <= bpow _ _ => apply bpow_ge_0
  | |- 0 <= Rabs _ => apply Rabs_pos
  | |- 0 <= _ => lra
  end.
(* A numeric goal: non-negativity by hand, the rest by Gappa, on a cleared context (the
   rotation's hypotheses are no business of Gappa's). *)
Ltac pe_clear := repeat match goal with H : _ |- _ => clear H end.
Ltac pe_num := first [solve [pe_pos] | (pe_clear; gappa)].
(* Vector forms: the error of rounding both components of (a, b). *)
Lemma pe_vec_err : forall (u e : R) (r : R -> R),
  (forall x, Rabs (r x - x) <= u * Rabs x + e) -> 0 <= u -> 0 <= e ->
  forall a b N h, 0 <= N -> a * a + b * b <= N * N -> 0 <= h -> 2 <= h * h ->
  (r a - a) * (r a - a) + (r b - b) * (r b - b) <= (u * N + h * e) * (u * N + h * e).
Proof.
  intros u e r Hr Hu He a b N h HN Hab Hh Hh2.
  assert (Ha := Hr a). assert (Hb := Hr b).
  assert (E1 : (r a - a) * (r a - a) <= (u * Rabs a + e) * (u * Rabs a + e)).
  { rewrite <- (Rabs_pos_eq ((r a - a) * (r a - a))) by apply pe_sq_nonneg. rewrite Rabs_mult.
    apply Rmult_le_compat; try apply Rabs_pos; exact Ha. }
  assert (E2 : (r b - b) * (r b - b) <= (u * Rabs b + e) * (u * Rabs b + e)).
  { rewrite <- (Rabs_pos_eq ((r b - b) * (r b - b))) by apply pe_sq_nonneg. rewrite Rabs_mult.
    apply Rmult_le_compat; try apply Rabs_pos; exact Hb. }
  assert (M : (u * Rabs a + e) * (u * Rabs a + e) + (u * Rabs b + e) * (u * Rabs b + e)
              <= (u * N + h * e) * (u * N + h * e)).
  { apply pe_minkowski.
    - apply Rmult_le_pos; assumption.
    - apply Rmult_le_pos; assumption.
    - assert (Ea : Rabs a * Rabs a = a * a) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
      assert (Eb : Rabs b * Rabs b = b * b) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
      replace (u * Rabs a * (u * Rabs a) + u * Rabs b * (u * Rabs b)) with ((u * u) * (a * a + b * b))
        by (rewrite <- Ea, <- Eb; ring).
      replace (u * N * (u * N)) with ((u * u) * (N * N)) by ring.
      apply Rmult_le_compat_l; [apply pe_sq_nonneg | exact Hab].
    - assert (0 <= e * e) by apply pe_sq_nonneg.
      replace (h * e * (h * e)) with ((h * h) * (e * e)) by ring.
      assert (2 * (e * e) <= (h * h) * (e * e)) by (apply Rmult_le_compat_r; assumption). lra. }
  lra.
Qed.

Lemma pe_two_prod_sq : forall a b c d,
  (Rabs a * Rabs c + Rabs b * Rabs d) * (Rabs a * Rabs c + Rabs b * Rabs d) +
  (Rabs a * Rabs d + Rabs b * Rabs c) * (Rabs a * Rabs d + Rabs b * Rabs c) <=
  2 * ((a * a + b * b) * (c * c + d * d)).
Proof.
  intros a b c d.
  assert (Ea : Rabs a * Rabs a = a * a) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
  assert (Eb : Rabs b * Rabs b = b * b) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
  assert (Ec : Rabs c * Rabs c = c * c) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
  assert (Ed : Rabs d * Rabs d = d * d) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
  rewrite <- Ea, <- Eb, <- Ec, <- Ed.
  set (A := Rabs a). set (B := Rabs b). set (C := Rabs c). set (D := Rabs d).
  assert (0 <= A) by apply Rabs_pos. assert (0 <= B) by apply Rabs_pos.
  assert (0 <= C) by apply Rabs_pos. assert (0 <= D) by apply Rabs_pos.
  assert (K1 : 2 * (A * B) <= A * A + B * B) by (assert (0 <= (A - B) * (A - B)) by apply pe_sq_nonneg; lra).
  assert (K2 : 2 * (C * D) <= C * C + D * D) by (assert (0 <= (C - D) * (C - D)) by apply pe_sq_nonneg; lra).
  assert (K3 : (2 * (A * B)) * (2 * (C * D)) <= (A * A + B * B) * (C * C + D * D)).
  { apply Rmult_le_compat; try assumption; apply Rmult_le_pos; try lra; apply Rmult_le_pos; assumption. }
  replace ((A * C + B * D) * (A * C + B * D) + (A * D + B * C) * (A * D + B * C))
    with ((A * A + B * B) * (C * C + D * D) + (2 * (A * B)) * (2 * (C * D))) by ring.
  lra.
Qed.

(* Two products rounded a coordinate: the vector of their errors. *)
Lemma pe_prod_err : forall (u e : R) (r : R -> R),
  (forall x, Rabs (r x - x) <= u * Rabs x + e) -> 0 <= u -> 0 <= e ->
  forall xa xb c s X Cm h, 0 <= X -> 0 <= Cm -> 0 <= h -> 2 <= h * h ->
  xa * xa + xb * xb <= X * X -> c * c + s * s <= Cm * Cm ->
  ((r (xa * c) - r (xb * s)) - (xa * c - xb * s)) * ((r (xa * c) - r (xb * s)) - (xa * c - xb * s)) +
  ((r (xa * s) + r (xb * c)) - (xa * s + xb * c)) * ((r (xa * s) + r (xb * c)) - (xa * s + xb * c))
  <= (h * u * X * Cm + 2 * h * e) * (h * u * X * Cm + 2 * h * e).
Proof.
  intros u e r Hr Hu He xa xb c s X Cm h HX HC Hh Hh2 Hx Hc.
  set (p1 := r (xa * c) - xa * c). set (p2 := r (xb * s) - xb * s).
  set (p3 := r (xa * s) - xa * s). set (p4 := r (xb * c) - xb * c).
  assert (H1 : Rabs p1 <= u * (Rabs xa * Rabs c) + e) by (unfold p1; rewrite <- Rabs_mult; apply Hr).
  assert (H2 : Rabs p2 <= u * (Rabs xb * Rabs s) + e) by (unfold p2; rewrite <- Rabs_mult; apply Hr).
  assert (H3 : Rabs p3 <= u * (Rabs xa * Rabs s) + e) by (unfold p3; rewrite <- Rabs_mult; apply Hr).
  assert (H4 : Rabs p4 <= u * (Rabs xb * Rabs c) + e) by (unfold p4; rewrite <- Rabs_mult; apply Hr).
  set (T1 := u * (Rabs xa * Rabs c + Rabs xb * Rabs s)). set (T2 := u * (Rabs xa * Rabs s + Rabs xb * Rabs c)).
  assert (A1 : Rabs (p1 - p2) <= T1 + 2 * e).
  { eapply Rle_trans; [apply Rabs_triang|]. rewrite Rabs_Ropp. unfold T1. lra. }
  assert (A2 : Rabs (p3 + p4) <= T2 + 2 * e).
  { eapply Rle_trans; [apply Rabs_triang|]. unfold T2. lra. }
  replace ((r (xa * c) - r (xb * s)) - (xa * c - xb * s)) with (p1 - p2) by (unfold p1, p2; ring).
  replace ((r (xa * s) + r (xb * c)) - (xa * s + xb * c)) with (p3 + p4) by (unfold p3, p4; ring).
  assert (S1 : (p1 - p2) * (p1 - p2) <= (T1 + 2 * e) * (T1 + 2 * e)).
  { rewrite <- (Rabs_pos_eq ((p1 - p2) * (p1 - p2))) by apply pe_sq_nonneg. rewrite Rabs_mult.
    apply Rmult_le_compat; try apply Rabs_pos; exact A1. }
  assert (S2 : (p3 + p4) * (p3 + p4) <= (T2 + 2 * e) * (T2 + 2 * e)).
  { rewrite <- (Rabs_pos_eq ((p3 + p4) * (p3 + p4))) by apply pe_sq_nonneg. rewrite Rabs_mult.
    apply Rmult_le_compat; try apply Rabs_pos; exact A2. }
  assert (HT1 : 0 <= T1) by (unfold T1; apply Rmult_le_pos; [lra|];
    apply Rplus_le_le_0_compat; apply Rmult_le_pos; apply Rabs_pos).
  assert (HT2 : 0 <= T2) by (unfold T2; apply Rmult_le_pos; [lra|];
    apply Rplus_le_le_0_compat; apply Rmult_le_pos; apply Rabs_pos).
  assert (M : (T1 + 2 * e) * (T1 + 2 * e) + (T2 + 2 * e) * (T2 + 2 * e)
              <= (h * u * X * Cm + 2 * h * e) * (h * u * X * Cm + 2 * h * e)).
  { replace (h * u * X * Cm + 2 * h * e) with ((h * u * X * Cm) + (h * (2 * e))) by ring.
    apply pe_minkowski.
    - apply Rmult_le_pos; [apply Rmult_le_pos; [apply Rmult_le_pos|]|]; assumption.
    - apply Rmult_le_pos; lra.
    - assert (K := pe_two_prod_sq xa xb c s).
      assert (0 <= xa * xa + xb * xb) by (apply Rplus_le_le_0_compat; apply pe_sq_nonneg).
      assert (0 <= c * c + s * s) by (apply Rplus_le_le_0_compat; apply pe_sq_nonneg).
      assert (P : (xa * xa + xb * xb) * (c * c + s * s) <= (X * X) * (Cm * Cm))
        by (apply Rmult_le_compat; assumption).
      unfold T1, T2.
      replace (u * (Rabs xa * Rabs c + Rabs xb * Rabs s) * (u * (Rabs xa * Rabs c + Rabs xb * Rabs s)) +
               u * (Rabs xa * Rabs s + Rabs xb * Rabs c) * (u * (Rabs xa * Rabs s + Rabs xb * Rabs c)))
        with ((u * u) * ((Rabs xa * Rabs c + Rabs xb * Rabs s) * (Rabs xa * Rabs c + Rabs xb * Rabs s) +
               (Rabs xa * Rabs s + Rabs xb * Rabs c) * (Rabs xa * Rabs s + Rabs xb * Rabs c))) by ring.
      replace (h * u * X * Cm * (h * u * X * Cm)) with ((u * u) * ((h * h) * ((X * X) * (Cm * Cm)))) by ring.
      apply Rmult_le_compat_l; [apply pe_sq_nonneg|].
      assert (0 <= (X * X) * (Cm * Cm)) by (apply Rmult_le_pos; apply pe_sq_nonneg).
      assert (2 * ((X * X) * (Cm * Cm)) <= (h * h) * ((X * X) * (Cm * Cm))) by (apply Rmult_le_compat_r; assumption).
      lra.
    - assert (0 <= e * e) by apply pe_sq_nonneg.
      replace (h * (2 * e) * (h * (2 * e))) with ((h * h) * (4 * (e * e))) by ring.
      assert (2 * (4 * (e * e)) <= (h * h) * (4 * (e * e))) by (apply Rmult_le_compat_r; lra).
      lra. }
  lra.
Qed.

(* The rotation: sums S = products (rounded as the recipe rounds them), rounded by rR, then
   stored by rA; the exact rotation of x by the table's (c, s) and by (C, S). *)
Lemma pe_rot_chain : forall (u e v f : R) (rR rA : R -> R),
  (forall x, Rabs (rR x - x) <= u * Rabs x + e) ->
  (forall x, Rabs (rA x - x) <= v * Rabs x + f) ->
  0 <= u -> 0 <= e -> 0 <= v -> 0 <= f ->
  forall (xa xb c s C S Sa Sb X Cm Tv P h O : R),
  0 <= X -> 0 <= Cm -> 0 <= Tv -> 0 <= P -> 0 <= h -> 2 <= h * h ->
  xa * xa + xb * xb <= X * X -> c * c + s * s <= Cm * Cm ->
  (c - C) * (c - C) + (s - S) * (s - S) <= Tv * Tv ->
  (Sa - (xa * c - xb * s)) * (Sa - (xa * c - xb * s)) + (Sb - (xa * s + xb * c)) * (Sb - (xa * s + xb * c)) <= P * P ->
  X * Tv + P + (u * (X * Cm + P) + h * e) + (v * (X * Cm + P + (u * (X * Cm + P) + h * e)) + h * f) <= O ->
  (rA (rR Sa) - (xa * C - xb * S)) * (rA (rR Sa) - (xa * C - xb * S)) +
  (rA (rR Sb) - (xa * S + xb * C)) * (rA (rR Sb) - (xa * S + xb * C)) <= O * O.
Proof.
  intros u e v f rR rA HR HA Hu He Hv Hf xa xb c s C S Sa Sb X Cm Tv P h O
         HX HCm HTv HP Hh Hh2 Hx Hcs HT HS HO.
  set (ya := xa * c - xb * s). set (yb := xa * s + xb * c).
  (* |x (c, s)| <= X Cm *)
  assert (Hy : ya * ya + yb * yb <= (X * Cm) * (X * Cm)).
  { replace (ya * ya + yb * yb) with ((xa * xa + xb * xb) * (c * c + s * s)) by (unfold ya, yb; ring).
    replace (X * Cm * (X * Cm)) with ((X * X) * (Cm * Cm)) by ring.
    apply Rmult_le_compat; try assumption; apply Rplus_le_le_0_compat; apply pe_sq_nonneg. }
  (* |S| <= X Cm + P *)
  assert (HSn : Sa * Sa + Sb * Sb <= (X * Cm + P) * (X * Cm + P)).
  { replace Sa with (ya + (Sa - ya)) by ring. replace Sb with (yb + (Sb - yb)) by ring.
    apply pe_minkowski; try assumption. apply Rmult_le_pos; assumption. }
  (* the sum's rounding *)
  set (N1 := X * Cm + P).
  assert (HN1 : 0 <= N1) by (unfold N1; apply Rplus_le_le_0_compat; [apply Rmult_le_pos|]; assumption).
  assert (HR1 := pe_vec_err u e rR HR Hu He Sa Sb N1 h HN1 HSn Hh Hh2).
  set (ra := rR Sa) in *. set (rb := rR Sb) in *.
  set (E1 := u * N1 + h * e).
  assert (HE1 : 0 <= E1) by (unfold E1; apply Rplus_le_le_0_compat; apply Rmult_le_pos; assumption).
  assert (Hrn : ra * ra + rb * rb <= (N1 + E1) * (N1 + E1)).
  { replace ra with (Sa + (ra - Sa)) by ring. replace rb with (Sb + (rb - Sb)) by ring.
    apply pe_minkowski; assumption. }
  (* the store *)
  assert (HN2 : 0 <= N1 + E1) by lra.
  assert (HA1 := pe_vec_err v f rA HA Hv Hf ra rb (N1 + E1) h HN2 Hrn Hh Hh2).
  (* the table's error, carried by x *)
  assert (Ht : (ya - (xa * C - xb * S)) * (ya - (xa * C - xb * S)) + (yb - (xa * S + xb * C)) * (yb - (xa * S + xb * C))
               <= (X * Tv) * (X * Tv)).
  { replace ((ya - (xa * C - xb * S)) * (ya - (xa * C - xb * S)) + (yb - (xa * S + xb * C)) * (yb - (xa * S + xb * C)))
      with ((xa * xa + xb * xb) * ((c - C) * (c - C) + (s - S) * (s - S))) by (unfold ya, yb; ring).
    replace (X * Tv * (X * Tv)) with ((X * X) * (Tv * Tv)) by ring.
    apply Rmult_le_compat; try assumption; apply Rplus_le_le_0_compat; apply pe_sq_nonneg. }
  (* add the four vectors *)
  set (E2 := v * (N1 + E1) + h * f).
  assert (HE2 : 0 <= E2) by (unfold E2; apply Rplus_le_le_0_compat; apply Rmult_le_pos; lra).
  assert (HXT : 0 <= X * Tv) by (apply Rmult_le_pos; assumption).
  assert (M1 := pe_minkowski _ _ _ _ _ _ HXT HP Ht HS).
  assert (HXP : 0 <= X * Tv + P) by lra.
  assert (M2 := pe_minkowski _ _ _ _ _ _ HXP HE1 M1 HR1).
  assert (HXPE : 0 <= X * Tv + P + E1) by lra.
  assert (M3 := pe_minkowski _ _ _ _ _ _ HXPE HE2 M2 HA1).
  replace (rA ra - (xa * C - xb * S)) with
    ((ya - (xa * C - xb * S)) + (Sa - ya) + (ra - Sa) + (rA ra - ra)) by ring.
  replace (rA rb - (xa * S + xb * C)) with
    ((yb - (xa * S + xb * C)) + (Sb - yb) + (rb - Sb) + (rA rb - rb)) by ring.
  eapply Rle_trans; [exact M3|].
  assert (HF : X * Tv + P + E1 + E2 <= O).
  { unfold E2, E1, N1 in *. lra. }
  assert (0 <= X * Tv + P + E1 + E2) by lra.
  apply Rmult_le_compat; lra.
Qed.
(* A rotation by A against one by a: the vector (cos A - cos a, sin A - sin a) is no longer than |A - a|. *)
Lemma pe_cs_vec : forall A a,
  (cos A - cos a) * (cos A - cos a) + (sin A - sin a) * (sin A - sin a) <= (A - a) * (A - a).
Proof.
  intros A a.
  set (d := (A - a) / 2).
  assert (E : (cos A - cos a) * (cos A - cos a) + (sin A - sin a) * (sin A - sin a) = 4 * (sin d * sin d)).
  { assert (H1 := sin2_cos2 A). assert (H2 := sin2_cos2 a). unfold Rsqr in H1, H2.
    assert (Hc : cos (A - a) = cos A * cos a + sin A * sin a) by apply cos_minus.
    assert (Hd : cos (2 * d) = 1 - 2 * sin d * sin d) by apply cos_2a_sin.
    replace (2 * d) with (A - a) in Hd by (unfold d; field).
    nra. }
  rewrite E.
  assert (Hs : Rabs (sin d) <= Rabs d).
  { assert (H := pe_sin_lip d 0). rewrite sin_0 in H. replace (sin d - 0) with (sin d) in H by ring.
    replace (d - 0) with d in H by ring. exact H. }
  assert (Sq : sin d * sin d <= d * d).
  { rewrite <- (Rabs_pos_eq (sin d * sin d)) by apply pe_sq_nonneg. rewrite Rabs_mult.
    rewrite <- (Rabs_pos_eq (d * d)) by apply pe_sq_nonneg. rewrite (Rabs_mult d d).
    apply Rmult_le_compat; try apply Rabs_pos; exact Hs. }
  replace ((A - a) * (A - a)) with (4 * (d * d)) by (unfold d; field). lra.
Qed.

Lemma pe_cs_vec2 : forall A a,
  (cos A - cos a) * (cos A - cos a) + (sin A - sin a) * (sin A - sin a) <= 2 * 2.
Proof.
  intros A a. assert (H1 := sin2_cos2 A). assert (H2 := sin2_cos2 a). unfold Rsqr in H1, H2.
  assert (H3 : 0 <= (cos A + cos a) * (cos A + cos a) + (sin A + sin a) * (sin A + sin a))
    by (apply Rplus_le_le_0_compat; apply pe_sq_nonneg).
  assert (E : (cos A - cos a) * (cos A - cos a) + (sin A - sin a) * (sin A - sin a) +
              ((cos A + cos a) * (cos A + cos a) + (sin A + sin a) * (sin A + sin a)) =
              2 * (sin A * sin A + cos A * cos A) + 2 * (sin a * sin a + cos a * cos a)) by ring.
  lra.
Qed.

(* Two roundings in a row: the error model composes. *)
Lemma pe_rnd_comp : forall (u1 e1 u2 e2 : R) (r1 r2 : R -> R),
  (forall x, Rabs (r1 x - x) <= u1 * Rabs x + e1) -> (forall x, Rabs (r2 x - x) <= u2 * Rabs x + e2) ->
  0 <= u1 -> 0 <= e1 -> 0 <= u2 -> 0 <= e2 ->
  forall x, Rabs (r2 (r1 x) - x) <= (u1 + u2 + u1 * u2) * Rabs x + (e1 * (1 + u2) + e2).
Proof.
  intros u1 e1 u2 e2 r1 r2 H1 H2 Hu1 He1 Hu2 He2 x.
  assert (A := H1 x). assert (B := H2 (r1 x)).
  assert (C : Rabs (r1 x) <= (1 + u1) * Rabs x + e1).
  { replace (r1 x) with (x + (r1 x - x)) by ring. eapply Rle_trans; [apply Rabs_triang|]. lra. }
  replace (r2 (r1 x) - x) with ((r2 (r1 x) - r1 x) + (r1 x - x)) by ring.
  eapply Rle_trans; [apply Rabs_triang|].
  assert (u2 * Rabs (r1 x) <= u2 * ((1 + u1) * Rabs x + e1)) by (apply Rmult_le_compat_l; assumption).
  nra.
Qed.

(* Multiplying by a constant k, then rounding: relative to k x. *)
Lemma pe_rnd_scale : forall (u e k : R) (r : R -> R),
  (forall x, Rabs (r x - x) <= u * Rabs x + e) ->
  forall x, Rabs (r (x * k) - k * x) <= u * Rabs (k * x) + e.
Proof. intros u e k r H x. replace (k * x) with (x * k) by ring. apply H. Qed.

(* The table: cl, sl within L of cos A, sin A (the library); T multiplies by k and rounds,
   |T x - k x| <= w |k x| + eta; A within Va of a. The table (T cl, T sl) is within
   k Va + |k - af| + k h L + w k (1 + h L) + h eta of af (cos a, sin a), of modulus at most
   k (1 + h L) (1 + w) + h eta. *)
Lemma pe_table_vec : forall (w eta k af L Va h : R) (T : R -> R),
  (forall x, Rabs (T x - k * x) <= w * Rabs (k * x) + eta) ->
  0 <= w -> 0 <= eta -> 0 <= k -> 0 <= L -> 0 <= Va -> 0 <= h -> 2 <= h * h ->
  forall a A cl sl,
  (cos A - cos a) * (cos A - cos a) + (sin A - sin a) * (sin A - sin a) <= Va * Va ->
  Rabs (cl - cos A) <= L -> Rabs (sl - sin A) <= L ->
  (T cl - af * cos a) * (T cl - af * cos a) + (T sl - af * sin a) * (T sl - af * sin a) <=
    (k * Va + Rabs (k - af) + k * (h * L) + (w * k * (1 + h * L) + h * eta)) *
    (k * Va + Rabs (k - af) + k * (h * L) + (w * k * (1 + h * L) + h * eta)) /\
  T cl * T cl + T sl * T sl <= (k * (1 + h * L) * (1 + w) + h * eta) * (k * (1 + h * L) * (1 + w) + h * eta).
Proof.
  intros w eta k af L Va h T HT Hw He Hk HL HVa Hh Hh2 a A cl sl HA Hc Hs.
  assert (Hcs := sin2_cos2 A). unfold Rsqr in Hcs.
  assert (Hcs' := sin2_cos2 a). unfold Rsqr in Hcs'.
  (* |(cl, sl)| <= 1 + h L *)
  assert (HhL : 0 <= h * L) by (apply Rmult_le_pos; assumption).
  assert (Hl : (cl - cos A) * (cl - cos A) + (sl - sin A) * (sl - sin A) <= (h * L) * (h * L)).
  { assert ((cl - cos A) * (cl - cos A) <= L * L).
    { rewrite <- (Rabs_pos_eq ((cl - cos A) * (cl - cos A))) by apply pe_sq_nonneg. rewrite Rabs_mult.
      apply Rmult_le_compat; try apply Rabs_pos; exact Hc. }
    assert ((sl - sin A) * (sl - sin A) <= L * L).
    { rewrite <- (Rabs_pos_eq ((sl - sin A) * (sl - sin A))) by apply pe_sq_nonneg. rewrite Rabs_mult.
      apply Rmult_le_compat; try apply Rabs_pos; exact Hs. }
    assert (0 <= L * L) by apply pe_sq_nonneg.
    replace (h * L * (h * L)) with ((h * h) * (L * L)) by ring.
    assert (2 * (L * L) <= (h * h) * (L * L)) by (apply Rmult_le_compat_r; assumption). lra. }
  assert (Hn : cl * cl + sl * sl <= (1 + h * L) * (1 + h * L)).
  { replace cl with (cos A + (cl - cos A)) by ring. replace sl with (sin A + (sl - sin A)) by ring.
    apply pe_minkowski; try lra. }
  (* T's rounding, as a vector *)
  set (N := k * (1 + h * L)).
  assert (HN : 0 <= N) by (unfold N; apply Rmult_le_pos; lra).
  assert (Hk2 : (k * cl) * (k * cl) + (k * sl) * (k * sl) <= N * N).
  { replace ((k * cl) * (k * cl) + (k * sl) * (k * sl)) with ((k * k) * (cl * cl + sl * sl)) by ring.
    unfold N. replace (k * (1 + h * L) * (k * (1 + h * L))) with ((k * k) * ((1 + h * L) * (1 + h * L))) by ring.
    apply Rmult_le_compat_l; [apply pe_sq_nonneg | exact Hn]. }
  assert (HTv : (T cl - k * cl) * (T cl - k * cl) + (T sl - k * sl) * (T sl - k * sl) <= (w * N + h * eta) * (w * N + h * eta)).
  { assert (E1 := HT cl). assert (E2 := HT sl).
    assert (S1 : (T cl - k * cl) * (T cl - k * cl) <= (w * Rabs (k * cl) + eta) * (w * Rabs (k * cl) + eta)).
    { rewrite <- (Rabs_pos_eq ((T cl - k * cl) * (T cl - k * cl))) by apply pe_sq_nonneg. rewrite Rabs_mult.
      apply Rmult_le_compat; try apply Rabs_pos; exact E1. }
    assert (S2 : (T sl - k * sl) * (T sl - k * sl) <= (w * Rabs (k * sl) + eta) * (w * Rabs (k * sl) + eta)).
    { rewrite <- (Rabs_pos_eq ((T sl - k * sl) * (T sl - k * sl))) by apply pe_sq_nonneg. rewrite Rabs_mult.
      apply Rmult_le_compat; try apply Rabs_pos; exact E2. }
    assert (M : (w * Rabs (k * cl) + eta) * (w * Rabs (k * cl) + eta) + (w * Rabs (k * sl) + eta) * (w * Rabs (k * sl) + eta)
                <= (w * N + h * eta) * (w * N + h * eta)).
    { apply pe_minkowski.
      - apply Rmult_le_pos; assumption.
      - apply Rmult_le_pos; assumption.
      - assert (Ea : Rabs (k * cl) * Rabs (k * cl) = (k * cl) * (k * cl)) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
        assert (Eb : Rabs (k * sl) * Rabs (k * sl) = (k * sl) * (k * sl)) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
        replace (w * Rabs (k * cl) * (w * Rabs (k * cl)) + w * Rabs (k * sl) * (w * Rabs (k * sl)))
          with ((w * w) * ((k * cl) * (k * cl) + (k * sl) * (k * sl))) by (rewrite <- Ea, <- Eb; ring).
        replace (w * N * (w * N)) with ((w * w) * (N * N)) by ring.
        apply Rmult_le_compat_l; [apply pe_sq_nonneg | exact Hk2].
      - assert (0 <= eta * eta) by apply pe_sq_nonneg.
        replace (h * eta * (h * eta)) with ((h * h) * (eta * eta)) by ring.
        assert (2 * (eta * eta) <= (h * h) * (eta * eta)) by (apply Rmult_le_compat_r; assumption). lra. }
    lra. }
  assert (HwN : 0 <= w * N + h * eta) by (apply Rplus_le_le_0_compat; apply Rmult_le_pos; assumption).
  split.
  - (* the error: k (cos A - cos a) + (k - af) cos a + k (cl - cos A) + (T cl - k cl) *)
    assert (P1 : (k * (cos A - cos a)) * (k * (cos A - cos a)) + (k * (sin A - sin a)) * (k * (sin A - sin a)) <= (k * Va) * (k * Va)).
    { replace ((k * (cos A - cos a)) * (k * (cos A - cos a)) + (k * (sin A - sin a)) * (k * (sin A - sin a)))
        with ((k * k) * ((cos A - cos a) * (cos A - cos a) + (sin A - sin a) * (sin A - sin a))) by ring.
      replace (k * Va * (k * Va)) with ((k * k) * (Va * Va)) by ring.
      apply Rmult_le_compat_l; [apply pe_sq_nonneg | exact HA]. }
    assert (P2 : ((k - af) * cos a) * ((k - af) * cos a) + ((k - af) * sin a) * ((k - af) * sin a) <= Rabs (k - af) * Rabs (k - af)).
    { replace (((k - af) * cos a) * ((k - af) * cos a) + ((k - af) * sin a) * ((k - af) * sin a))
        with (((k - af) * (k - af)) * (cos a * cos a + sin a * sin a)) by ring.
      rewrite <- Rabs_mult. rewrite Rabs_pos_eq by apply pe_sq_nonneg.
      replace (cos a * cos a + sin a * sin a) with 1 by lra. lra. }
    assert (P3 : (k * (cl - cos A)) * (k * (cl - cos A)) + (k * (sl - sin A)) * (k * (sl - sin A)) <= (k * (h * L)) * (k * (h * L))).
    { replace ((k * (cl - cos A)) * (k * (cl - cos A)) + (k * (sl - sin A)) * (k * (sl - sin A)))
        with ((k * k) * ((cl - cos A) * (cl - cos A) + (sl - sin A) * (sl - sin A))) by ring.
      replace (k * (h * L) * (k * (h * L))) with ((k * k) * ((h * L) * (h * L))) by ring.
      apply Rmult_le_compat_l; [apply pe_sq_nonneg | exact Hl]. }
    assert (Z1 : 0 <= k * Va) by (apply Rmult_le_pos; assumption).
    assert (M1 := pe_minkowski _ _ _ _ _ _ Z1 (Rabs_pos (k - af)) P1 P2).
    assert (Z2 : 0 <= k * Va + Rabs (k - af)) by (assert (0 <= Rabs (k - af)) by apply Rabs_pos; lra).
    assert (Z3 : 0 <= k * (h * L)) by (apply Rmult_le_pos; assumption).
    assert (M2 := pe_minkowski _ _ _ _ _ _ Z2 Z3 M1 P3).
    assert (Z4 : 0 <= k * Va + Rabs (k - af) + k * (h * L)) by lra.
    assert (M3 := pe_minkowski _ _ _ _ _ _ Z4 HwN M2 HTv).
    replace (T cl - af * cos a) with (k * (cos A - cos a) + (k - af) * cos a + k * (cl - cos A) + (T cl - k * cl)) by ring.
    replace (T sl - af * sin a) with (k * (sin A - sin a) + (k - af) * sin a + k * (sl - sin A) + (T sl - k * sl)) by ring.
    eapply Rle_trans; [exact M3|]. unfold N. right. ring.
  - replace (T cl) with (k * cl + (T cl - k * cl)) by ring. replace (T sl) with (k * sl + (T sl - k * sl)) by ring.
    eapply Rle_trans; [apply (pe_minkowski _ _ _ _ _ _ HN HwN Hk2 HTv)|]. unfold N. right. ring.
Qed.
(* The table's chain of roundings, step by step: a cast, or a product by a constant then a rounding. *)
Lemma pe_chain_id : forall x, Rabs ((fun y : R => y) x - 1 * x) <= 0 * Rabs (1 * x) + 0.
Proof. intros x. simpl. replace (x - 1 * x) with 0 by ring. rewrite Rabs_R0. lra. Qed.

Lemma pe_chain_cast : forall (u1 e1 k1 u2 e2 : R) (t1 r2 : R -> R),
  (forall x, Rabs (t1 x - k1 * x) <= u1 * Rabs (k1 * x) + e1) ->
  (forall y, Rabs (r2 y - y) <= u2 * Rabs y + e2) ->
  0 <= u1 -> 0 <= e1 -> 0 <= u2 -> 0 <= e2 ->
  forall x, Rabs (r2 (t1 x) - k1 * x) <= (u1 + u2 + u1 * u2) * Rabs (k1 * x) + (e1 * (1 + u2) + e2).
Proof.
  intros u1 e1 k1 u2 e2 t1 r2 H1 H2 Hu1 He1 Hu2 He2 x.
  assert (A := H1 x). assert (B := H2 (t1 x)).
  assert (C : Rabs (t1 x) <= (1 + u1) * Rabs (k1 * x) + e1).
  { replace (t1 x) with (k1 * x + (t1 x - k1 * x)) by ring. eapply Rle_trans; [apply Rabs_triang|]. lra. }
  replace (r2 (t1 x) - k1 * x) with ((r2 (t1 x) - t1 x) + (t1 x - k1 * x)) by ring.
  eapply Rle_trans; [apply Rabs_triang|].
  assert (u2 * Rabs (t1 x) <= u2 * ((1 + u1) * Rabs (k1 * x) + e1)) by (apply Rmult_le_compat_l; assumption).
  nra.
Qed.

Lemma pe_chain_mul : forall (u1 e1 k1 u2 e2 k2 : R) (t1 r2 : R -> R),
  (forall x, Rabs (t1 x - k1 * x) <= u1 * Rabs (k1 * x) + e1) ->
  (forall y, Rabs (r2 y - y) <= u2 * Rabs y + e2) ->
  0 <= u1 -> 0 <= e1 -> 0 <= u2 -> 0 <= e2 ->
  forall x, Rabs (r2 (t1 x * k2) - (k1 * k2) * x) <=
    (u1 + u2 + u1 * u2) * Rabs ((k1 * k2) * x) + (e1 * Rabs k2 * (1 + u2) + e2).
Proof.
  intros u1 e1 k1 u2 e2 k2 t1 r2 H1 H2 Hu1 He1 Hu2 He2 x.
  assert (A := H1 x). assert (B := H2 (t1 x * k2)).
  assert (A' : Rabs (t1 x * k2 - (k1 * k2) * x) <= u1 * Rabs ((k1 * k2) * x) + e1 * Rabs k2).
  { replace (t1 x * k2 - (k1 * k2) * x) with ((t1 x - k1 * x) * k2) by ring. rewrite Rabs_mult.
    replace ((k1 * k2) * x) with ((k1 * x) * k2) by ring. rewrite (Rabs_mult (k1 * x) k2).
    assert (0 <= Rabs k2) by apply Rabs_pos.
    assert (Rabs (t1 x - k1 * x) * Rabs k2 <= (u1 * Rabs (k1 * x) + e1) * Rabs k2) by (apply Rmult_le_compat_r; assumption).
    nra. }
  assert (C : Rabs (t1 x * k2) <= (1 + u1) * Rabs ((k1 * k2) * x) + e1 * Rabs k2).
  { replace (t1 x * k2) with ((k1 * k2) * x + (t1 x * k2 - (k1 * k2) * x)) by ring.
    eapply Rle_trans; [apply Rabs_triang|]. lra. }
  replace (r2 (t1 x * k2) - (k1 * k2) * x) with ((r2 (t1 x * k2) - t1 x * k2) + (t1 x * k2 - (k1 * k2) * x)) by ring.
  eapply Rle_trans; [apply Rabs_triang|].
  assert (u2 * Rabs (t1 x * k2) <= u2 * ((1 + u1) * Rabs ((k1 * k2) * x) + e1 * Rabs k2)) by (apply Rmult_le_compat_l; assumption).
  nra.
Qed.

(* An FMA: one product a coordinate rounded (the cos products, or the sin products). *)
Lemma pe_fma_cos_err : forall (u e : R) (r : R -> R),
  (forall x, Rabs (r x - x) <= u * Rabs x + e) -> 0 <= u -> 0 <= e ->
  forall xa xb c s X Cm h, 0 <= X -> 0 <= Cm -> 0 <= h -> 2 <= h * h ->
  xa * xa + xb * xb <= X * X -> c * c + s * s <= Cm * Cm ->
  ((r (xa * c) - xb * s) - (xa * c - xb * s)) * ((r (xa * c) - xb * s) - (xa * c - xb * s)) +
  ((xa * s + r (xb * c)) - (xa * s + xb * c)) * ((xa * s + r (xb * c)) - (xa * s + xb * c))
  <= (u * (X * Cm) + h * e) * (u * (X * Cm) + h * e).
Proof.
  intros u e r Hr Hu He xa xb c s X Cm h HX HC Hh Hh2 Hx Hc.
  replace ((r (xa * c) - xb * s) - (xa * c - xb * s)) with (r (xa * c) - xa * c) by ring.
  replace ((xa * s + r (xb * c)) - (xa * s + xb * c)) with (r (xb * c) - xb * c) by ring.
  apply (pe_vec_err u e r Hr Hu He); try assumption.
  - apply Rmult_le_pos; assumption.
  - replace ((xa * c) * (xa * c) + (xb * c) * (xb * c)) with ((xa * xa + xb * xb) * (c * c)) by ring.
    replace (X * Cm * (X * Cm)) with ((X * X) * (Cm * Cm)) by ring.
    assert (c * c <= Cm * Cm) by (assert (0 <= s * s) by apply pe_sq_nonneg; lra).
    apply Rmult_le_compat; try assumption; try apply pe_sq_nonneg.
    apply Rplus_le_le_0_compat; apply pe_sq_nonneg.
Qed.

Lemma pe_fma_sin_err : forall (u e : R) (r : R -> R),
  (forall x, Rabs (r x - x) <= u * Rabs x + e) -> 0 <= u -> 0 <= e ->
  forall xa xb c s X Cm h, 0 <= X -> 0 <= Cm -> 0 <= h -> 2 <= h * h ->
  xa * xa + xb * xb <= X * X -> c * c + s * s <= Cm * Cm ->
  ((xa * c - r (xb * s)) - (xa * c - xb * s)) * ((xa * c - r (xb * s)) - (xa * c - xb * s)) +
  ((r (xa * s) + xb * c) - (xa * s + xb * c)) * ((r (xa * s) + xb * c) - (xa * s + xb * c))
  <= (u * (X * Cm) + h * e) * (u * (X * Cm) + h * e).
Proof.
  intros u e r Hr Hu He xa xb c s X Cm h HX HC Hh Hh2 Hx Hc.
  replace ((xa * c - r (xb * s)) - (xa * c - xb * s)) with (- (r (xb * s) - xb * s)) by ring.
  replace ((r (xa * s) + xb * c) - (xa * s + xb * c)) with (r (xa * s) - xa * s) by ring.
  replace (- (r (xb * s) - xb * s) * - (r (xb * s) - xb * s)) with ((r (xb * s) - xb * s) * (r (xb * s) - xb * s)) by ring.
  apply (pe_vec_err u e r Hr Hu He); try assumption.
  - apply Rmult_le_pos; assumption.
  - replace ((xb * s) * (xb * s) + (xa * s) * (xa * s)) with ((xa * xa + xb * xb) * (s * s)) by ring.
    replace (X * Cm * (X * Cm)) with ((X * X) * (Cm * Cm)) by ring.
    assert (s * s <= Cm * Cm) by (assert (0 <= c * c) by apply pe_sq_nonneg; lra).
    apply Rmult_le_compat; try assumption; try apply pe_sq_nonneg.
    apply Rplus_le_le_0_compat; apply pe_sq_nonneg.
Qed.
Lemma pe_dot_le : forall a1 a2 b1 b2 A B, 0 <= A -> 0 <= B ->
  a1 * a1 + a2 * a2 <= A * A -> b1 * b1 + b2 * b2 <= B * B -> Rabs (a1 * b1 + a2 * b2) <= A * B.
Proof.
  intros a1 a2 b1 b2 A B HA HB Ha Hb.
  apply pe_sq_le; [apply Rmult_le_pos; assumption|].
  rewrite <- Rabs_mult. rewrite Rabs_pos_eq by apply pe_sq_nonneg.
  assert (E : (a1 * a1 + a2 * a2) * (b1 * b1 + b2 * b2) =
              (a1 * b1 + a2 * b2) * (a1 * b1 + a2 * b2) + (a1 * b2 - a2 * b1) * (a1 * b2 - a2 * b1)) by ring.
  assert (0 <= (a1 * b2 - a2 * b1) * (a1 * b2 - a2 * b1)) by apply pe_sq_nonneg.
  assert (0 <= a1 * a1 + a2 * a2) by (apply Rplus_le_le_0_compat; apply pe_sq_nonneg).
  assert (0 <= b1 * b1 + b2 * b2) by (apply Rplus_le_le_0_compat; apply pe_sq_nonneg).
  assert ((a1 * a1 + a2 * a2) * (b1 * b1 + b2 * b2) <= (A * A) * (B * B)) by (apply Rmult_le_compat; assumption).
  replace (A * B * (A * B)) with ((A * A) * (B * B)) by ring. lra.
Qed.

Lemma pe_sq_bound : forall x y, 0 <= y -> x * x <= y * y -> Rabs x <= y.
Proof.
  intros x y Hy H. apply pe_sq_le; [exact Hy|]. rewrite <- Rabs_mult. rewrite Rabs_pos_eq by apply pe_sq_nonneg. exact H.
Qed.

(* One pair's score: outputs y, z within rho of q C_m, k C_n (rounding), tables within tau of
   K (cos A, sin A), the angle difference's vector within d: the dot product's error. *)
Lemma pe_score_pair : forall (qa qb ka kb cm sm cn sn ya yb za zb K af tau rho X Cm d Am An phi : R),
  0 <= K -> 0 <= tau -> 0 <= rho -> 0 <= X -> 0 <= Cm -> 0 <= d ->
  qa * qa + qb * qb <= X * X -> ka * ka + kb * kb <= X * X ->
  (ya - (qa * cm - qb * sm)) * (ya - (qa * cm - qb * sm)) + (yb - (qa * sm + qb * cm)) * (yb - (qa * sm + qb * cm)) <= rho * rho ->
  (za - (ka * cn - kb * sn)) * (za - (ka * cn - kb * sn)) + (zb - (ka * sn + kb * cn)) * (zb - (ka * sn + kb * cn)) <= rho * rho ->
  (cm - K * cos Am) * (cm - K * cos Am) + (sm - K * sin Am) * (sm - K * sin Am) <= tau * tau ->
  (cn - K * cos An) * (cn - K * cos An) + (sn - K * sin An) * (sn - K * sin An) <= tau * tau ->
  cm * cm + sm * sm <= Cm * Cm -> cn * cn + sn * sn <= Cm * Cm ->
  (cos (An - Am) - cos phi) * (cos (An - Am) - cos phi) + (sin (An - Am) - sin phi) * (sin (An - Am) - sin phi) <= d * d ->
  Rabs (ya * za + yb * zb - af * af * ((qa * ka + qb * kb) * cos phi - (qa * kb - qb * ka) * sin phi)) <=
    X * X * (K * K * d + Rabs (K * K - af * af) + 2 * K * tau + tau * tau) + 2 * X * Cm * rho + rho * rho.
Proof.
  intros qa qb ka kb cm sm cn sn ya yb za zb K af tau rho X Cm d Am An phi
         HK Ht Hr HX HC Hd Hq Hk Hy Hz Htm Htn Hcm Hcn Hphi.
  set (Y1 := qa * cm - qb * sm). set (Y2 := qa * sm + qb * cm).
  set (Z1 := ka * cn - kb * sn). set (Z2 := ka * sn + kb * cn).
  assert (HY : Y1 * Y1 + Y2 * Y2 <= (X * Cm) * (X * Cm)).
  { replace (Y1 * Y1 + Y2 * Y2) with ((qa * qa + qb * qb) * (cm * cm + sm * sm)) by (unfold Y1, Y2; ring).
    replace (X * Cm * (X * Cm)) with ((X * X) * (Cm * Cm)) by ring.
    apply Rmult_le_compat; try assumption; apply Rplus_le_le_0_compat; apply pe_sq_nonneg. }
  assert (HZ : Z1 * Z1 + Z2 * Z2 <= (X * Cm) * (X * Cm)).
  { replace (Z1 * Z1 + Z2 * Z2) with ((ka * ka + kb * kb) * (cn * cn + sn * sn)) by (unfold Z1, Z2; ring).
    replace (X * Cm * (X * Cm)) with ((X * X) * (Cm * Cm)) by ring.
    apply Rmult_le_compat; try assumption; apply Rplus_le_le_0_compat; apply pe_sq_nonneg. }
  assert (HXC : 0 <= X * Cm) by (apply Rmult_le_pos; assumption).
  (* the rounding part *)
  assert (R1 := pe_dot_le _ _ _ _ _ _ Hr HXC Hy HZ).
  assert (R2 := pe_dot_le _ _ _ _ _ _ HXC Hr HY Hz).
  assert (R3 := pe_dot_le _ _ _ _ _ _ Hr Hr Hy Hz).
  (* the table part: <Y, Z> - E = w . (U - V) *)
  set (ur := cm * cn + sm * sn). set (ui := cm * sn - sm * cn).
  set (vr := af * af * cos phi). set (vi := af * af * sin phi).
  set (wr := qa * ka + qb * kb). set (wi := qa * kb - qb * ka).
  assert (EYZ : Y1 * Z1 + Y2 * Z2 = wr * ur - wi * ui) by (unfold Y1, Y2, Z1, Z2, wr, wi, ur, ui; ring).
  assert (HW : wr * wr + (- wi) * (- wi) <= (X * X) * (X * X)).
  { replace (wr * wr + (- wi) * (- wi)) with ((qa * qa + qb * qb) * (ka * ka + kb * kb)) by (unfold wr, wi; ring).
    apply Rmult_le_compat; try assumption; apply Rplus_le_le_0_compat; apply pe_sq_nonneg. }
  (* |U - V| *)
  set (t1 := cm - K * cos Am). set (t2 := sm - K * sin Am). set (s1 := cn - K * cos An). set (s2 := sn - K * sin An).
  assert (Hca := sin2_cos2 Am). assert (Hcb := sin2_cos2 An). assert (Hcp := sin2_cos2 phi). unfold Rsqr in Hca, Hcb, Hcp.
  assert (Cmn : cos (An - Am) = cos An * cos Am + sin An * sin Am) by apply cos_minus.
  assert (Smn : sin (An - Am) = sin An * cos Am - cos An * sin Am) by apply sin_minus.
  set (D1 := K * K * (cos (An - Am) - cos phi)). set (D2 := K * K * (sin (An - Am) - sin phi)).
  set (F1 := (K * K - af * af) * cos phi). set (F2 := (K * K - af * af) * sin phi).
  set (P1 := K * (cos Am * s1 + sin Am * s2)). set (P2 := K * (cos Am * s2 - sin Am * s1)).
  set (Q1 := K * (t1 * cos An + t2 * sin An)). set (Q2 := K * (t1 * sin An - t2 * cos An)).
  set (T1 := t1 * s1 + t2 * s2). set (T2 := t1 * s2 - t2 * s1).
  assert (EU1 : ur - vr = D1 + F1 + P1 + Q1 + T1).
  { unfold ur, vr, D1, F1, P1, Q1, T1, t1, t2, s1, s2. rewrite Cmn. ring. }
  assert (EU2 : ui - vi = D2 + F2 + P2 + Q2 + T2).
  { unfold ui, vi, D2, F2, P2, Q2, T2, t1, t2, s1, s2. rewrite Smn. ring. }
  assert (HKK : 0 <= K * K) by apply pe_sq_nonneg.
  assert (ND : D1 * D1 + D2 * D2 <= (K * K * d) * (K * K * d)).
  { replace (D1 * D1 + D2 * D2) with ((K * K * (K * K)) * ((cos (An - Am) - cos phi) * (cos (An - Am) - cos phi) +
      (sin (An - Am) - sin phi) * (sin (An - Am) - sin phi))) by (unfold D1, D2; ring).
    replace (K * K * d * (K * K * d)) with ((K * K * (K * K)) * (d * d)) by ring.
    apply Rmult_le_compat_l; [apply pe_sq_nonneg | exact Hphi]. }
  assert (NF : F1 * F1 + F2 * F2 <= Rabs (K * K - af * af) * Rabs (K * K - af * af)).
  { replace (F1 * F1 + F2 * F2) with (((K * K - af * af) * (K * K - af * af)) * (cos phi * cos phi + sin phi * sin phi))
      by (unfold F1, F2; ring).
    rewrite <- Rabs_mult. rewrite (Rabs_pos_eq (_ * _)) by apply pe_sq_nonneg.
    replace (cos phi * cos phi + sin phi * sin phi) with 1 by lra. lra. }
  assert (NP : P1 * P1 + P2 * P2 <= (K * tau) * (K * tau)).
  { replace (P1 * P1 + P2 * P2) with ((K * K) * ((cos Am * cos Am + sin Am * sin Am) * (s1 * s1 + s2 * s2)))
      by (unfold P1, P2; ring).
    replace (cos Am * cos Am + sin Am * sin Am) with 1 by lra.
    replace (K * tau * (K * tau)) with ((K * K) * (tau * tau)) by ring.
    apply Rmult_le_compat_l; [exact HKK | ]. unfold s1, s2. lra. }
  assert (NQ : Q1 * Q1 + Q2 * Q2 <= (K * tau) * (K * tau)).
  { replace (Q1 * Q1 + Q2 * Q2) with ((K * K) * ((t1 * t1 + t2 * t2) * (cos An * cos An + sin An * sin An)))
      by (unfold Q1, Q2; ring).
    replace (cos An * cos An + sin An * sin An) with 1 by lra.
    replace (K * tau * (K * tau)) with ((K * K) * (tau * tau)) by ring.
    apply Rmult_le_compat_l; [exact HKK | ]. unfold t1, t2. lra. }
  assert (NT : T1 * T1 + T2 * T2 <= (tau * tau) * (tau * tau)).
  { replace (T1 * T1 + T2 * T2) with ((t1 * t1 + t2 * t2) * (s1 * s1 + s2 * s2)) by (unfold T1, T2; ring).
    apply Rmult_le_compat; try (apply Rplus_le_le_0_compat; apply pe_sq_nonneg); unfold t1, t2, s1, s2; lra. }
  assert (Z1' : 0 <= K * K * d) by (apply Rmult_le_pos; assumption).
  assert (M1 := pe_minkowski _ _ _ _ _ _ Z1' (Rabs_pos _) ND NF).
  assert (Z2' : 0 <= K * K * d + Rabs (K * K - af * af)) by (assert (0 <= Rabs (K * K - af * af)) by apply Rabs_pos; lra).
  assert (ZKt : 0 <= K * tau) by (apply Rmult_le_pos; assumption).
  assert (M2 := pe_minkowski _ _ _ _ _ _ Z2' ZKt M1 NP).
  assert (Z3' : 0 <= K * K * d + Rabs (K * K - af * af) + K * tau) by lra.
  assert (M3 := pe_minkowski _ _ _ _ _ _ Z3' ZKt M2 NQ).
  assert (Z4' : 0 <= K * K * d + Rabs (K * K - af * af) + K * tau + K * tau) by lra.
  assert (Ztt : 0 <= tau * tau) by apply pe_sq_nonneg.
  assert (M4 := pe_minkowski _ _ _ _ _ _ Z4' Ztt M3 NT).
  set (G := K * K * d + Rabs (K * K - af * af) + K * tau + K * tau + tau * tau) in *.
  assert (HG : 0 <= G) by (unfold G; lra).
  assert (NUV : (ur - vr) * (ur - vr) + (ui - vi) * (ui - vi) <= G * G).
  { rewrite EU1, EU2. exact M4. }
  assert (HXX : 0 <= X * X) by apply pe_sq_nonneg.
  assert (T := pe_dot_le _ _ _ _ _ _ HXX HG HW NUV).
  (* together *)
  replace (ya * za + yb * zb - af * af * (wr * cos phi - wi * sin phi)) with
    (((ya - Y1) * Z1 + (yb - Y2) * Z2) + (Y1 * (za - Z1) + Y2 * (zb - Z2)) + ((ya - Y1) * (za - Z1) + (yb - Y2) * (zb - Z2))
     + (wr * (ur - vr) + (- wi) * (ui - vi)))
    by (unfold Y1, Y2, Z1, Z2, wr, wi, ur, ui, vr, vi; ring).
  eapply Rle_trans; [apply Rabs_triang|].
  eapply Rle_trans; [apply Rplus_le_compat_r; apply Rabs_triang|].
  eapply Rle_trans; [apply Rplus_le_compat_r; apply Rplus_le_compat_r; apply Rabs_triang|].
  assert (EG : X * X * G = X * X * (K * K * d + Rabs (K * K - af * af) + 2 * K * tau + tau * tau)) by (unfold G; ring).
  unfold Y1, Y2, Z1, Z2 in *. lra.
Qed.
"""


def _rnd_err(dtype: str) -> str:
    p, emin = FORMATS[dtype]
    return f"(pe_rnd_err ({emin}) {p} eq_refl)"


def table_chain(em: Emulation, fmt=lambda d: d) -> tuple[list[tuple[str, str, Fraction]], Fraction, Fraction, Fraction]:
    """The table's roundings after the library's ``cos`` / ``sin`` (in the emulation's
    dtypes, ``fmt`` maps a dtype to the format it is stated in): a list of ``("cast", dtype, 1)``
    and ``("mul", dtype, k)`` steps, and the composite ``(k, w, eta)`` of ``|T x - k x| <= w
    |k x| + eta`` (exact)."""
    T, tab = em.dt["trig_dtype"], em.dt["table_dtype"]
    lib = T if T in ("float64", "float32") else "float32"
    steps: list[tuple[str, str, Fraction]] = []
    if lib != T:
        steps.append(("cast", T, Fraction(1)))
    if em.af != 1.0:
        steps.append(("mul", T, Fraction(em.af)))
    if PRECISION[tab] < PRECISION[T]:
        steps.append(("cast", tab, Fraction(1)))
    k, w, e = Fraction(1), Fraction(0), Fraction(0)
    for kind, d, kk in steps:
        u2, e2 = unit_roundoff(fmt(d)), eta(fmt(d))
        if kind == "cast":
            w, e = w + u2 + w * u2, e * (1 + u2) + e2
        else:
            w, e, k = w + u2 + w * u2, e * abs(kk) * (1 + u2) + e2, k * kk
    return steps, k, w, e


def _chain_text(steps: list[tuple[str, str, Fraction]], var: str, fmt=lambda d: d) -> str:
    e = var
    for kind, d, kk in steps:
        e = f"{RND[fmt(d)]} ({e})" if kind == "cast" else f"{RND[fmt(d)]} ({e} * {dyadic(kk)})"
    return e


def _chain_proof(steps: list[tuple[str, str, Fraction]], fmt=lambda d: d) -> tuple[str, str, str, str, str]:
    """Coq text for the chain: the term proving ``forall x, Rabs (T x - K x) <= W Rabs (K x) +
    ETA``, the function ``T``, and ``K``, ``W``, ``ETA``."""
    t, k, w, e = "(fun y : R => y)", "1", "0", "0"
    hyp = "pe_chain_id"
    for kind, d, kk in steps:
        u2, e2 = bpow(unit_roundoff(fmt(d))), bpow(eta(fmt(d)))
        r = RND[fmt(d)]
        if kind == "cast":
            hyp = (f"(pe_chain_cast {w} {e} {k} {u2} {e2} {t} {r} {hyp} {_rnd_err(fmt(d))} "
                   "ltac:(pe_num) ltac:(pe_num) ltac:(pe_num) ltac:(pe_num))")
            t = f"(fun y : R => {r} ({t} y))"
            w, e = f"({w} + {u2} + {w} * {u2})", f"({e} * (1 + {u2}) + {e2})"
        else:
            kd = dyadic(kk)
            hyp = (f"(pe_chain_mul {w} {e} {k} {u2} {e2} {kd} {t} {r} {hyp} {_rnd_err(fmt(d))} "
                   "ltac:(pe_num) ltac:(pe_num) ltac:(pe_num) ltac:(pe_num))")
            t = f"(fun y : R => {r} ({t} y * {kd}))"
            w, e, k = f"({w} + {u2} + {w} * {u2})", f"({e} * Rabs {kd} * (1 + {u2}) + {e2})", f"({k} * {kd})"
    return hyp, t, k, w, e


def output_theorem_for(em: Emulation, name: str, case: str, *, X: Fraction | float, angle: float, output: float,
                       fmt=lambda d: d, check: bool = True) -> BoundTheorem:
    """The output bound of ``em``'s recipe as a theorem: for every input pair of norm ``<= X``,
    every angle ``A`` within ``angle`` of the exact ``a`` and the library's ``cos`` / ``sin`` of
    it within its allowance, the rotated pair as the recipe computes it (table chain, products
    -- an FMA where the recipe has one --, sum, store) is within ``output`` of ``af R(a) x``.

    Raises
    ------
    ValueError
        When the rotation's loads are not exact (a rotation dtype narrower than the activations
        or the table: not stated), or (``check``) when ``output`` is below what the lemmas give
        for these constants, computed exactly first (``check=False`` states it anyway: the
        tests' too-tight attacks, which Coq must refuse).
    """
    r = em.recipe
    X = Fraction(X)
    R, act, tab = em.rotation, em.act, em.dt["table_dtype"]
    if PRECISION[R] < max(PRECISION[act], PRECISION[tab]):
        raise ValueError(f"the rotation in {R} is narrower than the activations ({act}) or the tables ({tab}): "
                         "their rounding into it is not stated")
    if r.rounding != "nearest":
        raise ValueError("a rotation that rounds toward zero is not stated (Flocq's ZnearestE rounding here)")
    steps, K, W, ETA = table_chain(em, fmt)
    hyp, tfun, k_t, w_t, e_t = _chain_proof(steps, fmt)
    T = em.dt["trig_dtype"]
    lib = T if T in ("float64", "float32") else "float32"
    # the library's allowance: 2 ulps of its dtype; the fast intrinsic's 2**-21.41, stated as 2**-21
    L = Fraction(2) ** -21 if r.trig == "fast" else 2 * unit_roundoff(lib)
    assert L >= Fraction(FAST_TRIG_ERROR) or r.trig != "fast"
    af = Fraction(em.target.attention)
    V = Fraction(angle)
    Va = min(V, Fraction(2))
    h = SQRT2_UP
    u, e = unit_roundoff(fmt(R)), eta(fmt(R))
    store = R != act
    v, f = (unit_roundoff(fmt(act)), eta(fmt(act))) if store else (Fraction(0), Fraction(0))
    TV = K * Va + abs(K - af) + K * (h * L) + (W * K * (1 + h * L) + h * ETA)
    CM = K * (1 + h * L) * (1 + W) + h * ETA
    fma = r.fma if r.fma in ("cos", "sin") else "none"
    P = h * u * X * CM + 2 * h * e if fma == "none" else u * (X * CM) + h * e
    N1 = X * CM + P
    total = X * TV + P + (u * N1 + h * e) + (v * (N1 + (u * N1 + h * e)) + h * f)
    O = Fraction(output)
    if check and total > O:
        raise ValueError(f"output={output!r} is below what the rotation's lemmas give for {r.name} in {act} "
                         f"({float(total):.9g})")
    rR = RND[fmt(R)]
    c, s = _chain_text(steps, "cl", fmt), _chain_text(steps, "sl", fmt)
    if fma == "none":
        Sa, Sb = f"{rR} (xa * ({c})) - {rR} (xb * ({s}))", f"{rR} (xa * ({s})) + {rR} (xb * ({c}))"
        prod = "pe_prod_err"
    elif fma == "cos":
        Sa, Sb = f"{rR} (xa * ({c})) - xb * ({s})", f"xa * ({s}) + {rR} (xb * ({c}))"
        prod = "pe_fma_cos_err"
    else:
        Sa, Sb = f"xa * ({c}) - {rR} (xb * ({s}))", f"{rR} (xa * ({s})) + xb * ({c})"
        prod = "pe_fma_sin_err"
    outer = (lambda z: f"{RND[fmt(act)]} ({rR} ({z}))") if store else (lambda z: f"{rR} ({z})")
    A_, B_ = dyadic(af), dyadic(O)
    ea = f"({outer(Sa)} - (xa * ({A_} * cos a) - xb * ({A_} * sin a)))"
    eb = f"({outer(Sb)} - (xa * ({A_} * sin a) + xb * ({A_} * cos a)))"
    statement = (
        f"Theorem {name} : forall xa xb a A cl sl : R,\n"
        f"  xa * xa + xb * xb <= {dyadic(X)} * {dyadic(X)} ->\n"
        f"  Rabs (A - a) <= {dyadic(V)} ->\n"
        f"  Rabs (cl - cos A) <= {dyadic(L)} -> Rabs (sl - sin A) <= {dyadic(L)} ->\n"
        f"  {ea} * {ea} +\n  {eb} * {eb} <= {B_} * {B_}.")
    hv = ("assert (HV : (cos A - cos a) * (cos A - cos a) + (sin A - sin a) * (sin A - sin a) <= "
          f"{dyadic(Va)} * {dyadic(Va)}) by ")
    if Va < V:
        hv += "(eapply Rle_trans; [apply pe_cs_vec2|]; pe_num); "
    else:
        hv += ("(eapply Rle_trans; [apply pe_cs_vec|]; rewrite <- (Rabs_pos_eq ((A - a) * (A - a))) by "
               "apply pe_sq_nonneg; rewrite Rabs_mult; apply Rmult_le_compat; try apply Rabs_pos; exact HA); ")
    hd, xd, ld, vd = dyadic(h), dyadic(X), dyadic(L), dyadic(Va)
    cm = f"({k_t} * (1 + {hd} * {ld}) * (1 + {w_t}) + {hd} * {e_t})"
    tv = f"({k_t} * {vd} + Rabs ({k_t} - {A_}) + {k_t} * ({hd} * {ld}) + ({w_t} * {k_t} * (1 + {hd} * {ld}) + {hd} * {e_t}))"
    pr = (f"({hd} * {bpow(u)} * {xd} * {cm} + 2 * {hd} * {bpow(e)})" if fma == "none"
          else f"({bpow(u)} * ({xd} * {cm}) + {hd} * {bpow(e)})")
    hR = _rnd_err(fmt(R))
    rA, hA = (RND[fmt(act)], _rnd_err(fmt(act))) if store else ("(fun y : R => y)", "pe_id_err")
    nonneg = {"Zw": w_t, "Ze": e_t, "Zk": k_t, "ZL": ld, "ZV": vd, "Zh": hd, "Zx": xd, "Zu": bpow(u), "Zf": bpow(e)}
    script = (
        "intros xa xb a A cl sl Hx HA Hc Hs; "
        f"assert (HT := {hyp}); " + hv
        + "".join(f"assert ({z} : 0 <= {x}) by pe_num; " for z, x in nonneg.items())
        + f"assert (Zh2 : 2 <= {hd} * {hd}) by pe_num; "
        f"destruct (pe_table_vec {w_t} {e_t} {k_t} {A_} {ld} {vd} {hd} {tfun} HT Zw Ze Zk ZL ZV Zh Zh2 "
        "a A cl sl HV Hc Hs) as [Htab Hmod]; "
        f"assert (Zc : 0 <= {cm}) by pe_num; "
        f"assert (HP := {prod} {bpow(u)} {bpow(e)} {rR} {hR} Zu Zf xa xb ({tfun} cl) "
        f"({tfun} sl) {xd} {cm} {hd} Zx Zc Zh Zh2 Hx Hmod); "
        f"refine (pe_rot_chain {bpow(u)} {bpow(e)} {bpow(v)} {bpow(f)} {rR} {rA} {hR} {hA} Zu Zf _ _ "
        f"xa xb ({tfun} cl) ({tfun} sl) ({A_} * cos a) ({A_} * sin a) _ _ {xd} {cm} {tv} {pr} {hd} {B_} "
        "Zx Zc _ _ Zh Zh2 Hx Hmod Htab HP _); pe_num.")
    note = (f"{r.name} in {act}: pairs of norm <= {float(X):.9g}, angles within {angle:.6g}, the library's cos/sin "
            f"within {float(L):.3g}, table {' -> '.join(d for _, d, _ in steps) or T}, rotation in {R}"
            + (f" (FMA: the {fma} products rounded)" if fma != "none" else "") + (f", stored in {act}" if store else "")
            + f": error vector within {output:.6g}")
    return BoundTheorem(name, case, "output", output, statement, script, note, prelude=PRELUDE_ROTATION)


def score_theorem_for(em: Emulation, name: str, case: str, *, X: Fraction | float, slope: float, base: float,
                      fmt=lambda d: d, check: bool = True) -> BoundTheorem:
    """One pair's score error as a theorem, for every bound ``D`` of the difference of the two
    positions' angle errors: for every query ``q`` and key ``k`` of norm ``<= X``, angles
    ``Am``, ``An`` with ``|(An - Am) - (an - am)| <= D`` and the library's ``cos`` / ``sin``
    within its allowance, the recipe's rotated ``q`` (at ``m``) and ``k`` (at ``n``) have a dot
    product within ``slope * D + base`` of ``af^2 <q, R(an - am) k>`` (lemma
    ``pe_score_pair``: the table's error at each position as a vector ``tau`` from ``K (cos A,
    sin A)``, the rotation's roundings ``rho``, the angle errors by their difference). The
    score bound of :func:`pe_symbolic.audit.bounds.score_bound` is the mean over pairs of this
    at each pair's ``D = d_i``.

    Raises
    ------
    ValueError
        As :func:`output_theorem_for`; or (``check``) when ``slope`` or ``base`` is below what
        the lemmas give.
    """
    r = em.recipe
    X = Fraction(X)
    R, act, tab = em.rotation, em.act, em.dt["table_dtype"]
    if PRECISION[R] < max(PRECISION[act], PRECISION[tab]) or r.rounding != "nearest":
        raise ValueError("only rotations at least as wide as the activations and the table, rounding to nearest, "
                         "are stated")
    steps, K, W, ETA = table_chain(em, fmt)
    hyp, tfun, k_t, w_t, e_t = _chain_proof(steps, fmt)
    T = em.dt["trig_dtype"]
    lib = T if T in ("float64", "float32") else "float32"
    L = Fraction(2) ** -21 if r.trig == "fast" else 2 * unit_roundoff(lib)
    af = Fraction(em.target.attention)
    h = SQRT2_UP
    u, e = unit_roundoff(fmt(R)), eta(fmt(R))
    store = R != act
    v, f = (unit_roundoff(fmt(act)), eta(fmt(act))) if store else (Fraction(0), Fraction(0))
    TAU = abs(K - K) + K * (h * L) + (W * K * (1 + h * L) + h * ETA)
    CM = K * (1 + h * L) * (1 + W) + h * ETA
    fma = r.fma if r.fma in ("cos", "sin") else "none"
    P = h * u * X * CM + 2 * h * e if fma == "none" else u * (X * CM) + h * e
    N1 = X * CM + P
    RHO = P + (u * N1 + h * e) + (v * (N1 + (u * N1 + h * e)) + h * f)
    SL, B0 = Fraction(slope), Fraction(base)
    need_sl = X * X * (K * K)
    need_b0 = X * X * (abs(K * K - af * af) + 2 * K * TAU + TAU * TAU) + 2 * X * CM * RHO + RHO * RHO
    if check and (SL < need_sl or B0 < need_b0):
        raise ValueError(f"slope={slope!r} / base={base!r} are below what the score's lemmas give for {r.name} in "
                         f"{act} ({float(need_sl):.9g}, {float(need_b0):.9g})")
    rR = RND[fmt(R)]
    A_ = dyadic(af)

    def rotated(x1: str, x2: str, cl: str, sl: str) -> tuple[str, str]:
        c, s = _chain_text(steps, cl, fmt), _chain_text(steps, sl, fmt)
        if fma == "none":
            Sa, Sb = f"{rR} ({x1} * ({c})) - {rR} ({x2} * ({s}))", f"{rR} ({x1} * ({s})) + {rR} ({x2} * ({c}))"
        elif fma == "cos":
            Sa, Sb = f"{rR} ({x1} * ({c})) - {x2} * ({s})", f"{x1} * ({s}) + {rR} ({x2} * ({c}))"
        else:
            Sa, Sb = f"{x1} * ({c}) - {rR} ({x2} * ({s}))", f"{rR} ({x1} * ({s})) + {x2} * ({c})"
        outer = (lambda z: f"{RND[fmt(act)]} ({rR} ({z}))") if store else (lambda z: f"{rR} ({z})")
        return outer(Sa), outer(Sb)

    ya, yb = rotated("qa", "qb", "clm", "slm")
    za, zb = rotated("ka", "kb", "cln", "sln")
    xd, ld = dyadic(X), dyadic(L)
    statement = (
        f"Theorem {name} : forall D qa qb ka kb am an Am An clm slm cln sln : R,\n"
        f"  0 <= D ->\n  qa * qa + qb * qb <= {xd} * {xd} -> ka * ka + kb * kb <= {xd} * {xd} ->\n"
        f"  Rabs ((An - Am) - (an - am)) <= D ->\n"
        f"  Rabs (clm - cos Am) <= {ld} -> Rabs (slm - sin Am) <= {ld} ->\n"
        f"  Rabs (cln - cos An) <= {ld} -> Rabs (sln - sin An) <= {ld} ->\n"
        f"  Rabs ({ya} * {za} + {yb} * {zb} -\n"
        f"    {A_} * {A_} * ((qa * ka + qb * kb) * cos (an - am) - (qa * kb - qb * ka) * sin (an - am))) <=\n"
        f"  {dyadic(SL)} * D + {dyadic(B0)}.")
    hd = dyadic(h)
    cm = f"({k_t} * (1 + {hd} * {ld}) * (1 + {w_t}) + {hd} * {e_t})"
    tau = f"({k_t} * 0 + Rabs ({k_t} - {k_t}) + {k_t} * ({hd} * {ld}) + ({w_t} * {k_t} * (1 + {hd} * {ld}) + {hd} * {e_t}))"
    pr = (f"({hd} * {bpow(u)} * {xd} * {cm} + 2 * {hd} * {bpow(e)})" if fma == "none"
          else f"({bpow(u)} * ({xd} * {cm}) + {hd} * {bpow(e)})")
    n1 = f"({xd} * {cm} + {pr})"
    rho = f"({pr} + ({bpow(u)} * {n1} + {hd} * {bpow(e)}) + ({bpow(v)} * ({n1} + ({bpow(u)} * {n1} + {hd} * {bpow(e)})) + {hd} * {bpow(f)}))"
    prod = {"none": "pe_prod_err", "cos": "pe_fma_cos_err", "sin": "pe_fma_sin_err"}[fma]
    hR = _rnd_err(fmt(R))
    rA, hA = (RND[fmt(act)], _rnd_err(fmt(act))) if store else ("(fun y : R => y)", "pe_id_err")
    nonneg = {"Zw": w_t, "Ze": e_t, "Zk": k_t, "ZL": ld, "Zh": hd, "Zx": xd, "Zu": bpow(u), "Zf": bpow(e),
              "Zv": bpow(v), "Zg": bpow(f)}

    def side(x1: str, x2: str, cl: str, sl: str, A: str, tag: str) -> str:
        return (f"assert (HV{tag} : (cos {A} - cos {A}) * (cos {A} - cos {A}) + (sin {A} - sin {A}) * "
                f"(sin {A} - sin {A}) <= 0 * 0) by (ring_simplify; lra); "
                f"destruct (pe_table_vec {w_t} {e_t} {k_t} {k_t} {ld} 0 {hd} {tfun} HT Zw Ze Zk ZL Z0 Zh Zh2 "
                f"{A} {A} {cl} {sl} HV{tag} H{cl} H{sl}) as [Ht{tag} Hm{tag}]; "
                f"assert (HP{tag} := {prod} {bpow(u)} {bpow(e)} {rR} {hR} Zu Zf {x1} {x2} ({tfun} {cl}) ({tfun} {sl}) "
                f"{xd} {cm} {hd} Zx Zc Zh Zh2 H{x1[0]} Hm{tag}); "
                f"assert (H0{tag} : ({tfun} {cl} - {tfun} {cl}) * ({tfun} {cl} - {tfun} {cl}) + ({tfun} {sl} - "
                f"{tfun} {sl}) * ({tfun} {sl} - {tfun} {sl}) <= 0 * 0) by (ring_simplify; lra); "
                f"assert (Hr{tag} := pe_rot_chain {bpow(u)} {bpow(e)} {bpow(v)} {bpow(f)} {rR} {rA} {hR} {hA} "
                f"Zu Zf Zv Zg {x1} {x2} ({tfun} {cl}) ({tfun} {sl}) ({tfun} {cl}) ({tfun} {sl}) _ _ {xd} {cm} 0 {pr} "
                f"{hd} {rho} Zx Zc Z0 ZP Zh Zh2 H{x1[0]} Hm{tag} H0{tag} HP{tag} ltac:(lra)); ")

    script = (
        "intros D qa qb ka kb am an Am An clm slm cln sln HD Hq Hk HA Hclm Hslm Hcln Hsln; "
        f"assert (HT := {hyp}); "
        + "".join(f"assert ({z} : 0 <= {x}) by pe_num; " for z, x in nonneg.items())
        + f"assert (Z0 : (0:R) <= 0) by lra; assert (Zh2 : 2 <= {hd} * {hd}) by pe_num; "
        f"assert (Zc : 0 <= {cm}) by pe_num; assert (ZP : 0 <= {pr}) by pe_num; "
        f"assert (Zt : 0 <= {tau}) by pe_num; assert (Zr : 0 <= {rho}) by pe_num; "
        + side("qa", "qb", "clm", "slm", "Am", "m") + side("ka", "kb", "cln", "sln", "An", "n")
        + "assert (HVd : (cos (An - Am) - cos (an - am)) * (cos (An - Am) - cos (an - am)) + (sin (An - Am) - "
        "sin (an - am)) * (sin (An - Am) - sin (an - am)) <= D * D) by (eapply Rle_trans; [apply pe_cs_vec|]; "
        "rewrite <- (Rabs_pos_eq (((An - Am) - (an - am)) * ((An - Am) - (an - am)))) by apply pe_sq_nonneg; "
        "rewrite Rabs_mult; apply Rmult_le_compat; try apply Rabs_pos; exact HA); "
        f"assert (S1 : {xd} * {xd} * ({k_t} * {k_t}) <= {dyadic(SL)}) by pe_num; "
        f"assert (S2 : {xd} * {xd} * (Rabs ({k_t} * {k_t} - {A_} * {A_}) + 2 * {k_t} * {tau} + {tau} * {tau}) + "
        f"2 * {xd} * {cm} * {rho} + {rho} * {rho} <= {dyadic(B0)}) by pe_num; "
        f"assert (S3 : {xd} * {xd} * ({k_t} * {k_t}) * D <= {dyadic(SL)} * D) by (apply Rmult_le_compat_r; assumption); "
        f"eapply Rle_trans; [exact (pe_score_pair qa qb ka kb ({tfun} clm) ({tfun} slm) ({tfun} cln) ({tfun} sln) "
        f"_ _ _ _ {k_t} {A_} {tau} {rho} {xd} {cm} D Am An (an - am) Zk Zt Zr Zx Zc HD Hq Hk Hrm Hrn Htm Htn "
        "Hmm Hmn HVd)|]; lra.")
    note = (f"{r.name} in {act}: one pair's score for pairs of norm <= {float(X):.9g}, angle errors differing by "
            f"<= D: within {slope:.6g} D + {base:.6g}")
    return BoundTheorem(name, case, "score", base, statement, script, note, prelude=PRELUDE_ROTATION)
