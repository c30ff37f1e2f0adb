r"""The audit's floating-point bounds as Coq theorems over Flocq's formats, checked by Coq.

:mod:`pe_symbolic.audit.bounds` puts a bound beside every measurement of ``pe-audit``. This
module states the **angle**, **table** and **output** bounds of an audited recipe as Coq
theorems over `Flocq <https://flocq.gitlabpages.inria.fr/>`_'s floating-point formats
(``round radix2 (FLT_exp emin prec) ZnearestE``: round to nearest even, subnormals
included, precision ``prec``: float64 53 / -1074, float32 24 / -149, bfloat16 8 / -133,
float16 11 / -24), with the audit's own numbers (every constant is the float64 the audit
computed, printed exactly as ``m * bpow radix2 e``: never copied by hand), and has Coq
check them (:func:`check_bounds`):

* **angle** -- for every integer position ``0 <= t <= t_max`` (``rnd_int T``, the floor of
  a real ``T``), every frequency ``theta`` of a group of pairs (an enclosure of the pairs'
  exact frequencies) and every inverse frequency ``th`` the recipe may hold (relative error
  at most the audit's exact ``eps`` of those pairs), the angle as the recipe forms it
  (positions rounded to their dtype, then to the angle's; the product rounded; cast to the
  dtype of ``cos`` / ``sin``) is within the audit's angle bound of ``t theta``. Proved by
  the ``gappa`` tactic (Coq's Gappa plugin: Gappa finds the proof, Coq's kernel checks
  it). The pairs are grouped so that each group's worst case is within the audit's bound
  (the audit's bound is the maximum over the pairs).
* **table** -- for every angle ``A`` within that bound of the exact ``a`` and every
  library result ``c`` within 2 units of the trig dtype's roundoff of ``cos A`` (the
  audit's model of ``cos`` / ``sin``: a hypothesis, the one thing the library promises),
  the table value (``c`` rounded where the recipe rounds it) is within the audit's table
  bound of ``cos a``, and likewise for ``sin``. Proved from ``|cos x - cos y| <= |x - y|``
  (the mean value theorem, :data:`PRELUDE`) and the ``gappa`` tactic.
* **output** -- for every pair ``(xa, xb)`` of norm at most ``1 + u`` (a unit pair rounded
  to the activation dtype, as the audit's) and table values ``c``, ``s`` within the table
  bound of ``cos a``, ``sin a``, the rotated pair as the recipe computes it (each product,
  the sum / difference rounded in the rotation dtype, then a cast to the activation dtype)
  is within the audit's output bound of the exact rotation (the length of the error
  vector, as the audit measures it). Proved from Flocq's ``error_N_FLT`` (``round x =
  x (1 + d) + n``, ``|d| <= 2^-p``, ``|n| <= 2^(emin-1)``) by a lemma of :data:`PRELUDE`
  and numeric side conditions proved by ``gappa``.

A theorem counts as ``checked`` only when Coq saved it (``Qed``) **and** ``Print
Assumptions`` lists no axiom beyond :data:`ALLOWED_AXIOMS` (those Coq's real numbers and
Flocq themselves rest on); ``Admitted`` or any other axiom makes it ``refused``. A bound
made tighter than the audit's, or stated in the wrong format, is not proved (``failed``):
``tests/test_coq_bounds.py`` checks both for every case.

The formats have no largest exponent (Flocq's FLT): a theorem is about IEEE arithmetic
where nothing overflows, which is exactly where the audit states a finite bound (it
reports ``inf`` and names the overflow otherwise; such a bound is not stated here).

What is stated: the recipes whose angle is one product ``t * theta`` (``inv_freq`` of
``reciprocal``, ``pow``, ``exp``, ``exp2``) without the modulo-2 pi reduction, attention
factor 1, rotations in a dtype at least as wide as the tables and the activations; the
score bound is not stated. :func:`case_theorems` names what it leaves out and why.

>>> th = case_theorems(CASES[0])
>>> [t.kind for t in th.theorems][-2:]
['table', 'output']
>>> print(dyadic(0.75), dyadic(-3.0), dyadic(2.0**-24))
(3 * bpow radix2 (-2)) (- 3) (1 * bpow radix2 (-24))
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from .._validate import check_choice
from .bounds import angle_bound, derived_bounds, exact_integer_limit
from .emulate import PRECISION, Emulation
from .recipes import ACT_DTYPES, PRESETS

__all__ = [
    "ALLOWED_AXIOMS",
    "CASES",
    "FORMATS",
    "PRELUDE",
    "BoundCase",
    "BoundReport",
    "BoundResult",
    "BoundTheorem",
    "CaseTheorems",
    "angle_theorems",
    "bound_theorems",
    "case_theorems",
    "check_bounds",
    "coq_bounds_available",
    "coq_file",
    "dyadic",
    "output_theorem",
    "table_theorem",
]

#: Flocq's FLT format of each dtype: (precision, smallest exponent ``emin``: the subnormals' ulp).
FORMATS: dict[str, tuple[int, int]] = {
    "float64": (53, -1074), "float32": (24, -149), "bfloat16": (8, -133), "float16": (11, -24)}
#: The Coq notation of each format's round-to-nearest-even (defined in :data:`PRELUDE`).
_RND = {"float64": "rnd_f64", "float32": "rnd_f32", "bfloat16": "rnd_bf16", "float16": "rnd_f16"}

#: The axioms a checked theorem may depend on: Coq's classical real numbers
#: (``ClassicalDedekindReals``, on which ``Rabs_triang`` already rests), functional
#: extensionality and excluded middle (Flocq's own lemmas use both). Anything else --
#: ``Admitted``, an ``Axiom`` -- makes a theorem ``refused``.
ALLOWED_AXIOMS: frozenset[str] = frozenset({
    "ClassicalDedekindReals.sig_forall_dec",
    "ClassicalDedekindReals.sig_not_dec",
    "FunctionalExtensionality.functional_extensionality_dep",
    "Classical_Prop.classic",
})

#: Seconds one theorem's proof may run in Coq (``Timeout``) before it counts as failed.
THEOREM_TIMEOUT = 60

#: The generated file's head: the libraries, the formats' rounding, and the lemmas every
#: theorem uses (checked by Coq with them: a wrong lemma can only make a theorem fail).
PRELUDE = r"""(* Generated by pe_symbolic.audit.coq_bounds: the audit's bounds as Coq theorems. Do not edit. *)
From Coq Require Import Reals Lra.
From Flocq Require Import Core Relative.
From Gappa Require Import Gappa_tactic.
Open Scope R_scope.

(* IEEE formats as Flocq's FLT(emin, prec), round to nearest even, subnormals included. *)
Notation rnd_f64 := (round radix2 (FLT_exp (-1074) 53) ZnearestE).
Notation rnd_f32 := (round radix2 (FLT_exp (-149) 24) ZnearestE).
Notation rnd_bf16 := (round radix2 (FLT_exp (-133) 8) ZnearestE).
Notation rnd_f16 := (round radix2 (FLT_exp (-24) 11) ZnearestE).
(* The integers: rnd_int T = floor T, so T in [0, n] ranges rnd_int T over 0, 1, ..., n. *)
Notation rnd_int := (round radix2 (FIX_exp 0) Zfloor).

Lemma pe_cos_lip : forall x y, Rabs (cos x - cos y) <= Rabs (x - y).
Proof.
  intros x y.
  destruct (MVT_abs cos (fun z => - sin z) y x) as [z [Hz _]].
  { intros z _. apply derivable_pt_lim_cos. }
  rewrite Hz, Rabs_Ropp.
  rewrite <- (Rmult_1_l (Rabs (x - y))) at 2.
  apply Rmult_le_compat_r; [apply Rabs_pos | apply Rabs_le; apply SIN_bound].
Qed.

Lemma pe_sin_lip : forall x y, Rabs (sin x - sin y) <= Rabs (x - y).
Proof.
  intros x y.
  destruct (MVT_abs sin cos y x) as [z [Hz _]].
  { intros z _. apply derivable_pt_lim_sin. }
  rewrite Hz.
  rewrite <- (Rmult_1_l (Rabs (x - y))) at 2.
  apply Rmult_le_compat_r; [apply Rabs_pos | apply Rabs_le; apply COS_bound].
Qed.

Lemma pe_cos_sin_sq : forall a, cos a * cos a + sin a * sin a <= 1.
Proof. intros a. assert (H := sin2_cos2 a). unfold Rsqr in H. lra. Qed.

(* Round to nearest even in FLT(emin, prec): |rnd x - x| <= 2^-prec |x| + 2^(emin-1). *)
Lemma pe_rnd_err : forall emin prec, (0 < prec)%Z -> forall x,
  Rabs (round radix2 (FLT_exp emin prec) ZnearestE x - x) <=
  bpow radix2 (- prec) * Rabs x + bpow radix2 (emin - 1).
Proof.
  intros emin prec Hp x.
  destruct (error_N_FLT radix2 emin prec Hp (fun z => negb (Z.even z)) x) as [d [n [Hd [Hn [_ Hr]]]]].
  rewrite Hr.
  replace (x * (1 + d) + n - x) with (x * d + n) by ring.
  assert (E1 : / 2 * bpow radix2 (- prec + 1) = bpow radix2 (- prec)).
  { replace (- prec + 1)%Z with (1 + - prec)%Z by ring. rewrite bpow_plus, bpow_1.
    simpl (IZR (radix_val radix2)). field. }
  assert (E2 : / 2 * bpow radix2 emin = bpow radix2 (emin - 1)).
  { replace emin with (1 + (emin - 1))%Z at 1 by ring. rewrite bpow_plus, bpow_1.
    simpl (IZR (radix_val radix2)). field. }
  rewrite E1 in Hd. rewrite E2 in Hn.
  eapply Rle_trans; [apply Rabs_triang|].
  rewrite Rabs_mult. rewrite (Rmult_comm (bpow radix2 (- prec))).
  apply Rplus_le_compat; [apply Rmult_le_compat_l; [apply Rabs_pos|exact Hd] | exact Hn].
Qed.

Lemma pe_id_err : forall x, Rabs ((fun y : R => y) x - x) <= 0 * Rabs x + 0.
Proof. intros x. unfold Rminus. rewrite Rplus_opp_r, Rabs_R0. lra. Qed.

(* One coordinate of a rotation: rA (rR (y1 + y2)) against P + Q, with y1, y2 within
   u |.| + e of P, Q and |P| + |Q| <= W. *)
Lemma pe_two_sum : forall (u e v f : R) (rR rA : R -> R) (P Q y1 y2 : R),
  (forall x, Rabs (rR x - x) <= u * Rabs x + e) ->
  (forall x, Rabs (rA x - x) <= v * Rabs x + f) ->
  0 <= u -> 0 <= e -> 0 <= v -> 0 <= f ->
  Rabs (y1 - P) <= u * Rabs P + e -> Rabs (y2 - Q) <= u * Rabs Q + e ->
  forall W, Rabs P + Rabs Q <= W ->
  Rabs (rA (rR (y1 + y2)) - (P + Q)) <=
    (2 * u + u * u) * W + (3 + 2 * u) * e + v * ((1 + u) * ((1 + u) * W + 2 * e) + e) + f.
Proof.
  intros u e v f rR rA P Q y1 y2 HR HA Hu He Hv Hf H1 H2 W HW.
  set (s := y1 + y2).
  assert (Hs : Rabs (s - (P + Q)) <= u * W + 2 * e).
  { unfold s. replace (y1 + y2 - (P + Q)) with ((y1 - P) + (y2 - Q)) by ring.
    eapply Rle_trans; [apply Rabs_triang|].
    assert (u * (Rabs P + Rabs Q) <= u * W) by (apply Rmult_le_compat_l; lra). lra. }
  assert (HsW : Rabs s <= (1 + u) * W + 2 * e).
  { assert (Rabs s <= Rabs (s - (P + Q)) + Rabs (P + Q)).
    { replace s with ((s - (P + Q)) + (P + Q)) at 1 by ring. apply Rabs_triang. }
    assert (Rabs (P + Q) <= Rabs P + Rabs Q) by apply Rabs_triang. lra. }
  assert (Hr : Rabs (rR s - s) <= u * ((1 + u) * W + 2 * e) + e).
  { eapply Rle_trans; [apply HR|].
    assert (u * Rabs s <= u * ((1 + u) * W + 2 * e)) by (apply Rmult_le_compat_l; lra). lra. }
  assert (Hrs : Rabs (rR s) <= (1 + u) * ((1 + u) * W + 2 * e) + e).
  { assert (Rabs (rR s) <= Rabs (rR s - s) + Rabs s).
    { replace (rR s) with ((rR s - s) + s) at 1 by ring. apply Rabs_triang. }
    lra. }
  assert (Ha : Rabs (rA (rR s) - rR s) <= v * ((1 + u) * ((1 + u) * W + 2 * e) + e) + f).
  { eapply Rle_trans; [apply HA|].
    assert (v * Rabs (rR s) <= v * ((1 + u) * ((1 + u) * W + 2 * e) + e)) by (apply Rmult_le_compat_l; lra).
    lra. }
  replace (rA (rR s) - (P + Q)) with ((rA (rR s) - rR s) + (rR s - s) + (s - (P + Q))) by ring.
  eapply Rle_trans; [apply Rabs_triang|].
  eapply Rle_trans; [apply Rplus_le_compat_r; apply Rabs_triang|].
  lra.
Qed.

Lemma pe_sq_nonneg : forall x, 0 <= x * x.
Proof. intros x. apply Rle_0_sqr. Qed.

Lemma pe_sq_le : forall x y, 0 <= y -> x * x <= y * y -> x <= y.
Proof. intros x y Hy H. destruct (Rle_or_lt x y) as [|Hlt]; [assumption|]. nra. Qed.

Lemma pe_minkowski : forall t1 t2 r1 r2 A B, 0 <= A -> 0 <= B ->
  t1 * t1 + t2 * t2 <= A * A -> r1 * r1 + r2 * r2 <= B * B ->
  (t1 + r1) * (t1 + r1) + (t2 + r2) * (t2 + r2) <= (A + B) * (A + B).
Proof.
  intros t1 t2 r1 r2 A B HA HB Ht Hr.
  assert (Hcs : (t1 * r1 + t2 * r2) * (t1 * r1 + t2 * r2) <= (A * B) * (A * B)).
  { assert ((t1 * r1 + t2 * r2) * (t1 * r1 + t2 * r2) <= (t1 * t1 + t2 * t2) * (r1 * r1 + r2 * r2)).
    { assert (E : (t1 * t1 + t2 * t2) * (r1 * r1 + r2 * r2) =
        (t1 * r1 + t2 * r2) * (t1 * r1 + t2 * r2) + (t1 * r2 - t2 * r1) * (t1 * r2 - t2 * r1)) by ring.
      rewrite E. assert (0 <= (t1 * r2 - t2 * r1) * (t1 * r2 - t2 * r1)) by apply pe_sq_nonneg. lra. }
    assert (0 <= t1 * t1 + t2 * t2) by (apply Rplus_le_le_0_compat; apply pe_sq_nonneg).
    assert (0 <= r1 * r1 + r2 * r2) by (apply Rplus_le_le_0_compat; apply pe_sq_nonneg).
    assert ((t1 * t1 + t2 * t2) * (r1 * r1 + r2 * r2) <= (A * A) * (B * B)).
    { apply Rmult_le_compat; lra. }
    lra. }
  assert (t1 * r1 + t2 * r2 <= A * B).
  { apply pe_sq_le; [apply Rmult_le_pos; assumption|exact Hcs]. }
  lra.
Qed.

Lemma pe_abs_sum_sq : forall a b c d, 0 <= a * a + b * b ->
  (Rabs a * Rabs c + Rabs b * Rabs d) * (Rabs a * Rabs c + Rabs b * Rabs d) <=
  (a * a + b * b) * (c * c + d * d).
Proof.
  intros a b c d _.
  assert (Ea : Rabs a * Rabs a = a * a) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
  assert (Eb : Rabs b * Rabs b = b * b) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
  assert (Ec : Rabs c * Rabs c = c * c) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
  assert (Ed : Rabs d * Rabs d = d * d) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
  rewrite <- Ea, <- Eb, <- Ec, <- Ed.
  set (A := Rabs a). set (B := Rabs b). set (C := Rabs c). set (D := Rabs d).
  assert (E : (A * A + B * B) * (C * C + D * D) =
    (A * C + B * D) * (A * C + B * D) + (A * D - B * C) * (A * D - B * C)) by ring.
  rewrite E. assert (0 <= (A * D - B * C) * (A * D - B * C)) by apply pe_sq_nonneg. lra.
Qed.

(* The rotation of a pair (xa, xb), |(xa, xb)|^2 <= n2, by tables c, s within Tb of
   C = cos a, S = sin a: each product and the sum / difference rounded by rR, then rA; the
   error vector's squared length is at most o^2 when the constants satisfy the conditions
   (g >= sqrt (2 n2), h >= sqrt 2, W bounds |xa c| + |xb s|). *)
Lemma pe_rot_vec : forall (u e v f : R) (rR rA : R -> R),
  (forall x, Rabs (rR x - x) <= u * Rabs x + e) ->
  (forall x, Rabs (rA x - x) <= v * Rabs x + f) ->
  0 <= u -> 0 <= e -> 0 <= v -> 0 <= f ->
  forall (n2 g h W Tb o : R),
  0 <= Tb -> 0 <= g -> 0 <= h -> 0 <= W ->
  2 * n2 <= g * g -> 2 <= h * h ->
  n2 * (1 + 2 * h * Tb + 2 * Tb * Tb) <= W * W ->
  g * Tb + h * ((2 * u + u * u) * W + (3 + 2 * u) * e + v * ((1 + u) * ((1 + u) * W + 2 * e) + e) + f) <= o ->
  forall (xa xb c s C S : R),
  xa * xa + xb * xb <= n2 -> C * C + S * S <= 1 ->
  Rabs (c - C) <= Tb -> Rabs (s - S) <= Tb ->
  (rA (rR (rR (xa * c) - rR (xb * s))) - (xa * C - xb * S)) *
  (rA (rR (rR (xa * c) - rR (xb * s))) - (xa * C - xb * S)) +
  (rA (rR (rR (xa * s) + rR (xb * c))) - (xa * S + xb * C)) *
  (rA (rR (rR (xa * s) + rR (xb * c))) - (xa * S + xb * C)) <= o * o.
Proof.
  intros u e v f rR rA HR HA Hu He Hv Hf n2 g h W Tb o HTb Hg Hh HW Hgn Hh2 HWn Ho
         xa xb c s C S Hx HCS Hc Hs.
  set (beta := (2 * u + u * u) * W + (3 + 2 * u) * e + v * ((1 + u) * ((1 + u) * W + 2 * e) + e) + f) in *.
  assert (Hn2 : 0 <= xa * xa + xb * xb) by (apply Rplus_le_le_0_compat; apply pe_sq_nonneg).
  assert (HCSh : Rabs C + Rabs S <= h).
  { apply pe_sq_le; [exact Hh|].
    assert (E1 : Rabs C * Rabs C = C * C) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
    assert (E2 : Rabs S * Rabs S = S * S) by (rewrite <- Rabs_mult; apply Rabs_pos_eq; apply pe_sq_nonneg).
    assert (0 <= (Rabs C - Rabs S) * (Rabs C - Rabs S)) by apply pe_sq_nonneg. lra. }
  assert (Hcs : c * c + s * s <= 1 + 2 * h * Tb + 2 * Tb * Tb).
  { assert (Ec : c * c <= C * C + 2 * Rabs C * Tb + Tb * Tb).
    { replace c with (C + (c - C)) by ring.
      assert (C * (c - C) <= Rabs C * Tb).
      { eapply Rle_trans; [apply Rle_abs|]. rewrite Rabs_mult.
        apply Rmult_le_compat_l; [apply Rabs_pos|exact Hc]. }
      assert ((c - C) * (c - C) <= Tb * Tb).
      { rewrite <- (Rabs_pos_eq ((c - C) * (c - C))) by apply pe_sq_nonneg. rewrite Rabs_mult.
        apply Rmult_le_compat; try apply Rabs_pos; exact Hc. }
      lra. }
    assert (Es : s * s <= S * S + 2 * Rabs S * Tb + Tb * Tb).
    { replace s with (S + (s - S)) by ring.
      assert (S * (s - S) <= Rabs S * Tb).
      { eapply Rle_trans; [apply Rle_abs|]. rewrite Rabs_mult.
        apply Rmult_le_compat_l; [apply Rabs_pos|exact Hs]. }
      assert ((s - S) * (s - S) <= Tb * Tb).
      { rewrite <- (Rabs_pos_eq ((s - S) * (s - S))) by apply pe_sq_nonneg. rewrite Rabs_mult.
        apply Rmult_le_compat; try apply Rabs_pos; exact Hs. }
      lra. }
    assert (2 * (Rabs C + Rabs S) * Tb <= 2 * h * Tb).
    { apply Rmult_le_compat_r; [exact HTb|lra]. }
    lra. }
  assert (Hcs0 : 0 <= c * c + s * s) by (apply Rplus_le_le_0_compat; apply pe_sq_nonneg).
  assert (HWW : (xa * xa + xb * xb) * (c * c + s * s) <= W * W).
  { eapply Rle_trans; [|exact HWn].
    eapply Rle_trans; [apply Rmult_le_compat_r; [exact Hcs0|exact Hx]|].
    apply Rmult_le_compat_l; [lra|exact Hcs]. }
  assert (HW1 : Rabs (xa * c) + Rabs (- (xb * s)) <= W).
  { rewrite Rabs_Ropp, !Rabs_mult. apply pe_sq_le; [exact HW|].
    eapply Rle_trans; [apply pe_abs_sum_sq; exact Hn2|exact HWW]. }
  assert (HW2 : Rabs (xa * s) + Rabs (xb * c) <= W).
  { rewrite !Rabs_mult. apply pe_sq_le; [exact HW|].
    eapply Rle_trans; [apply pe_abs_sum_sq; exact Hn2|].
    replace (c * c + s * s) with (s * s + c * c) in HWW by ring. exact HWW. }
  assert (Ra : Rabs (rA (rR (rR (xa * c) - rR (xb * s))) - (xa * c - xb * s)) <= beta).
  { unfold Rminus at 1 2.
    apply (pe_two_sum u e v f rR rA (xa * c) (- (xb * s)) (rR (xa * c)) (- rR (xb * s)) HR HA Hu He Hv Hf).
    - apply HR.
    - replace (- rR (xb * s) - - (xb * s)) with (- (rR (xb * s) - xb * s)) by ring.
      rewrite Rabs_Ropp, (Rabs_Ropp (xb * s)). apply HR.
    - exact HW1. }
  assert (Rb : Rabs (rA (rR (rR (xa * s) + rR (xb * c))) - (xa * s + xb * c)) <= beta).
  { apply (pe_two_sum u e v f rR rA (xa * s) (xb * c) (rR (xa * s)) (rR (xb * c)) HR HA Hu He Hv Hf);
      [apply HR|apply HR|exact HW2]. }
  assert (Hbeta : 0 <= beta).
  { eapply Rle_trans; [apply Rabs_pos|exact Ra]. }
  set (ya := rA (rR (rR (xa * c) - rR (xb * s)))) in *.
  set (yb := rA (rR (rR (xa * s) + rR (xb * c)))) in *.
  set (r1 := ya - (xa * c - xb * s)). set (r2 := yb - (xa * s + xb * c)).
  set (t1 := (xa * c - xb * s) - (xa * C - xb * S)). set (t2 := (xa * s + xb * c) - (xa * S + xb * C)).
  assert (Ht : t1 * t1 + t2 * t2 <= (g * Tb) * (g * Tb)).
  { assert (E : t1 * t1 + t2 * t2 = (xa * xa + xb * xb) * ((c - C) * (c - C) + (s - S) * (s - S)))
      by (unfold t1, t2; ring).
    rewrite E.
    assert (Hd : (c - C) * (c - C) + (s - S) * (s - S) <= 2 * (Tb * Tb)).
    { assert ((c - C) * (c - C) <= Tb * Tb).
      { rewrite <- (Rabs_pos_eq ((c - C) * (c - C))) by apply pe_sq_nonneg. rewrite Rabs_mult.
        apply Rmult_le_compat; try apply Rabs_pos; exact Hc. }
      assert ((s - S) * (s - S) <= Tb * Tb).
      { rewrite <- (Rabs_pos_eq ((s - S) * (s - S))) by apply pe_sq_nonneg. rewrite Rabs_mult.
        apply Rmult_le_compat; try apply Rabs_pos; exact Hs. }
      lra. }
    assert (0 <= (c - C) * (c - C) + (s - S) * (s - S))
      by (apply Rplus_le_le_0_compat; apply pe_sq_nonneg).
    eapply Rle_trans; [apply Rmult_le_compat_r; [assumption|exact Hx]|].
    eapply Rle_trans; [apply Rmult_le_compat_l; [lra|exact Hd]|].
    assert (0 <= Tb * Tb) by apply pe_sq_nonneg.
    replace (n2 * (2 * (Tb * Tb))) with ((2 * n2) * (Tb * Tb)) by ring.
    replace (g * Tb * (g * Tb)) with ((g * g) * (Tb * Tb)) by ring.
    apply Rmult_le_compat_r; assumption. }
  assert (Hr : r1 * r1 + r2 * r2 <= (h * beta) * (h * beta)).
  { assert (r1 * r1 <= beta * beta).
    { rewrite <- (Rabs_pos_eq (r1 * r1)) by apply pe_sq_nonneg. rewrite Rabs_mult.
      apply Rmult_le_compat; try apply Rabs_pos; exact Ra. }
    assert (r2 * r2 <= beta * beta).
    { rewrite <- (Rabs_pos_eq (r2 * r2)) by apply pe_sq_nonneg. rewrite Rabs_mult.
      apply Rmult_le_compat; try apply Rabs_pos; exact Rb. }
    assert (0 <= beta * beta) by apply pe_sq_nonneg.
    replace (h * beta * (h * beta)) with ((h * h) * (beta * beta)) by ring.
    assert (2 * (beta * beta) <= (h * h) * (beta * beta)) by (apply Rmult_le_compat_r; assumption).
    lra. }
  assert (HgT : 0 <= g * Tb) by (apply Rmult_le_pos; assumption).
  assert (HhB : 0 <= h * beta) by (apply Rmult_le_pos; assumption).
  assert (HM := pe_minkowski t1 t2 r1 r2 (g * Tb) (h * beta) HgT HhB Ht Hr).
  replace (ya - (xa * C - xb * S)) with (t1 + r1) by (unfold t1, r1; ring).
  replace (yb - (xa * S + xb * C)) with (t2 + r2) by (unfold t2, r2; ring).
  eapply Rle_trans; [exact HM|].
  assert (0 <= g * Tb + h * beta) by lra.
  apply Rmult_le_compat; lra.
Qed.
"""


# --------------------------------------------------------------------------------------
# exact constants


def dyadic(x: float | int | Fraction) -> str:
    """The exact Coq text of a dyadic rational (every finite float64 is one):
    ``(m * bpow radix2 (e))``, an integer as itself.

    >>> dyadic(1.5), dyadic(2**-1074), dyadic(5)
    ('(3 * bpow radix2 (-1))', '(1 * bpow radix2 (-1074))', '5')
    >>> dyadic(0.1)  # 0.1 is the float64 nearest to 1/10, a dyadic rational
    '(3602879701896397 * bpow radix2 (-55))'
    >>> dyadic(Fraction(1, 3))
    Traceback (most recent call last):
    ValueError: x=Fraction(1, 3) is not a dyadic rational (its denominator is not a power of 2)
    """
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"x={x!r} is not finite: no Coq constant states it")
    f = Fraction(x)
    n, d = f.numerator, f.denominator
    if d & (d - 1):
        raise ValueError(f"x={x!r} is not a dyadic rational (its denominator is not a power of 2)")
    if d == 1:
        return str(n) if n >= 0 else f"(- {-n})"
    k = d.bit_length() - 1
    body = f"{abs(n)} * bpow radix2 ({-k})"
    return f"({body})" if n >= 0 else f"(- ({body}))"


def _up(x: float) -> Fraction:
    """The float64 just above ``x`` (an exact upper bound for a value ``x`` was rounded to nearest from)."""
    return Fraction(math.nextafter(x, math.inf))


def _down(x: float) -> Fraction:
    return Fraction(math.nextafter(x, -math.inf))


def _u(dtype: str) -> Fraction:
    """The unit roundoff ``2^-p`` of a format, exactly."""
    return Fraction(1, 2 ** FORMATS[dtype][0])


def _eta(dtype: str) -> Fraction:
    """Half the smallest subnormal, ``2^(emin - 1)``: the absolute part of a rounding's error."""
    return Fraction(1, 2 ** (1 - FORMATS[dtype][1]))


def _bpow(x: Fraction) -> str:
    """A power of two as ``bpow radix2 (e)`` (0 as ``0``): the form :data:`PRELUDE`'s
    ``pe_rnd_err`` states a format's roundoff in, so that the two unify."""
    if x == 0:
        return "0"
    k = x.denominator.bit_length() - 1
    assert x == Fraction(1, 2**k), x
    return f"(bpow radix2 ({-k}))"


def _sqrt_up(x: Fraction, bits: int = 24) -> Fraction:
    """A dyadic ``y >= 0`` with ``y * y >= x``, within ``2^-bits`` of ``sqrt(x)``."""
    scaled = x * 4**bits
    n = math.isqrt(scaled.numerator // scaled.denominator) + 1
    return Fraction(n, 2**bits)


# --------------------------------------------------------------------------------------
# what is stated


@dataclass(frozen=True)
class BoundCase:
    """One audited configuration whose bounds are stated: a model config, a preset recipe,
    the activation dtype and the context (positions ``0 .. context - 1``)."""

    name: str
    config: str
    recipe: str
    dtype: str
    context: int
    what: str = ""

    def __post_init__(self) -> None:
        check_choice("recipe", self.recipe, tuple(PRESETS))
        check_choice("dtype", self.dtype, ACT_DTYPES)
        if not (isinstance(self.context, int) and not isinstance(self.context, bool) and 1 <= self.context <= 2**53):
            raise ValueError(f"context={self.context!r} must be an integer in [1, 2**53]")

    def emulation(self) -> Emulation:
        """The audit's emulation of this case (its frequencies and exact ``eps``)."""
        from .. import numeric
        from .emulate import rope_target

        return Emulation(rope_target(numeric.model_config(self.config), self.config), PRESETS[self.recipe],
                         self.dtype)


#: The cases ``pe-derive check --coq`` states and checks: one per kind of dtype a recipe
#: runs in (Llama-3.1-8B's frequencies, llama3 scaling, as on the docs' accuracy page).
CASES: tuple[BoundCase, ...] = (
    BoundCase("float32", "llama-3.1-8b", "hf", "float32", 131072,
              "HF's recipe in float32: float32 inv_freq, positions, product, cos/sin, tables, rotation"),
    BoundCase("bfloat16", "llama-3.1-8b", "hf-autocast", "bfloat16", 8192,
              "HF under bf16 autocast: inv_freq held, positions and the product in bfloat16, cos/sin "
              "rounded to bfloat16, bfloat16 rotation"),
    BoundCase("float16", "llama-3.1-8b", "hf-autocast", "float16", 8192,
              "HF under fp16 autocast: as bfloat16, in float16 (positions below 65520: no overflow)"),
    BoundCase("mixed", "llama-3.1-8b", "hf", "bfloat16", 131072,
              "HF's recipe with a bfloat16 model: float32 angles and cos/sin, bfloat16 tables and rotation"),
    BoundCase("mixed-fp32-rotation", "llama-3.1-8b", "vllm-fp32", "bfloat16", 131072,
              "vLLM's current kernel with a bfloat16 model: float32 cache and rotation, one cast to bfloat16"),
    BoundCase("float64", "llama-3.1-8b", "pe_symbolic-torch", "float32", 131072,
              "float64 inv_freq, integer positions, float64 product and cos/sin, float32 tables and rotation"),
)


@dataclass(frozen=True)
class BoundTheorem:
    """One audit bound as a Coq theorem: its statement, its proof script and the number it states."""

    name: str
    case: str
    kind: Literal["angle", "table", "output"]
    value: float
    """The audit's bound this theorem states (the float64 the audit computed)."""
    statement: str
    script: str
    note: str = ""
    pairs: tuple[int, ...] = ()
    """The pairs an angle theorem covers (empty for the table and output theorems: every pair)."""

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.name):
            raise ValueError(f"name={self.name!r} is not a Coq identifier")
        if not self.statement.startswith(f"Theorem {self.name} :"):
            raise ValueError(f"the statement of {self.name!r} must begin 'Theorem {self.name} :'")

    def renamed(self, name: str) -> BoundTheorem:
        """The same theorem under another name (to state variants side by side)."""
        return dataclasses.replace(self, name=name, statement=self.statement.replace(
            f"Theorem {self.name} :", f"Theorem {name} :", 1))

    def text(self, *, tolerant: bool = False, timeout: int = THEOREM_TIMEOUT) -> str:
        """The theorem and its proof; ``tolerant`` adds what :func:`check_bounds` needs to go on
        after a failure (``Abort``) and to see that Coq saved it (``pe_bound_ok_NAME``)."""
        head = f"(* {self.case}, {self.kind}: {_comment(self.note)} *)\n" if self.note else ""
        if not tolerant:
            return f"{head}{self.statement}\nProof. {self.script} Qed.\n"
        return (f"{head}{self.statement}\nProof. Timeout {timeout} (solve [{self.script.rstrip('.')}]). Qed.\n"
                f"Abort.\nDefinition pe_bound_ok_{self.name} := {self.name}.\n")


@dataclass(frozen=True)
class CaseTheorems:
    """A case's theorems, the audit's bounds they state, and what is not stated (and why)."""

    case: BoundCase
    theorems: tuple[BoundTheorem, ...]
    bounds: dict[str, float]
    not_stated: dict[str, str] = field(default_factory=dict)


def _comment(s: str) -> str:
    return s.replace("(*", "( *").replace("*)", "* )")


def _ident(s: str) -> str:
    return re.sub(r"\W", "_", s)


@dataclass(frozen=True)
class _Audit:
    """What the audit computes for a case: its emulation, the last position and its bounds."""

    em: Emulation
    t_max: int
    angle: float
    dominant: str
    bounds: dict[str, float]


@functools.lru_cache(maxsize=32)
def _audit(case: BoundCase) -> _Audit:
    em = case.emulation()
    t_max = case.context - 1
    ab = angle_bound(em, float(t_max))
    return _Audit(em, t_max, ab.value, ab.dominant, {"angle": ab.value, **derived_bounds(em, ab, float(t_max))})


def _formats(state_as: Mapping[str, str] | None) -> Callable[[str], str]:
    """The format a dtype is stated in (itself, unless ``state_as`` says otherwise)."""
    m = dict(state_as or {})
    for k, v in m.items():
        if k not in FORMATS or v not in FORMATS:
            raise ValueError(f"state_as={state_as!r}: {k!r} -> {v!r}; use dtypes of {', '.join(FORMATS)}")
    return lambda d: m.get(d, d)


def _number(name: str, x: float | None, default: float) -> float:
    x = default if x is None else x
    if not (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0):
        raise ValueError(f"{name}={x!r} must be a positive finite number")
    return float(x)


def angle_theorems(case: BoundCase, value: float | None = None, *,
                   state_as: Mapping[str, str] | None = None) -> list[BoundTheorem]:
    """``case``'s angle bound (default: the audit's) for every pair, as theorems: the pairs in
    groups whose worst case (largest ``eps``, largest ``theta``, at ``t_max``) is within the
    bound.

    ``state_as`` states a dtype's rounding in another format (``{"float32": "bfloat16"}``):
    with the audit's numbers unchanged, such a theorem is about other arithmetic than the
    recipe's (the tests' wrong-format attack).
    """
    au = _audit(case)
    em, t_max, fmt = au.em, au.t_max, _formats(state_as)
    value = _number("value", value, au.angle)
    dt, r = em.dt, em.recipe
    P, A, Dt = dt["position_dtype"], dt["angle_dtype"], dt["trig_dtype"]
    u_p = max([_u(d) for d in (P, A) if d in FORMATS and t_max > exact_integer_limit(d)], default=Fraction(0))
    u_m = _u(A)
    cast = PRECISION[Dt] < PRECISION[A] and not r.reduce
    u_c = _u(Dt) if cast else Fraction(0)
    pos = "rnd_int T"
    if P != "int64":
        pos = f"{_RND[fmt(P)]} ({pos})"
    if A != P:
        pos = f"{_RND[fmt(A)]} ({pos})"
    angle = f"{_RND[fmt(A)]} ({pos} * th)"
    if cast:
        angle = f"{_RND[fmt(Dt)]} ({angle})"
    V = Fraction(value)
    order = sorted(range(em.h), key=lambda i: -float(em.theta_hi[i]))
    margin = 1 + Fraction(1, 2**40)  # Gappa's own interval arithmetic is outward rounded

    def fits(group: list[int]) -> bool:
        E = max(_up(float(em.eps[i])) for i in group)
        hi = max(_up(float(em.theta_hi[i])) for i in group)
        gamma = (1 + u_p) * (1 + E) * (1 + u_m) * (1 + u_c) - 1
        return gamma * t_max * hi * margin <= V

    groups: list[list[int]] = []
    k = 0
    while k < len(order):
        g = [order[k]]
        while k + len(g) < len(order) and fits(g + [order[k + len(g)]]):
            g.append(order[k + len(g)])
        groups.append(g)
        k += len(g)
    out = []
    for j, g in enumerate(groups):
        E = max(_up(float(em.eps[i])) for i in g)
        lo = min(_down(float(em.theta_hi[i])) for i in g)
        hi = max(_up(float(em.theta_hi[i])) for i in g)
        name = f"pe_bound_{_ident(case.name)}_angle_{j}"
        pairs = ", ".join(map(str, sorted(g))) if len(g) <= 6 else f"{len(g)} pairs, {min(g)} .. {max(g)}"
        statement = (
            f"Theorem {name} : forall T theta th : R,\n"
            f"  0 <= T <= {t_max} ->\n"
            f"  {dyadic(lo)} <= theta <= {dyadic(hi)} ->\n"
            f"  - {dyadic(E)} <= (th - theta) / theta <= {dyadic(E)} ->\n"
            f"  Rabs ({angle} - rnd_int T * theta) <= {dyadic(V)}.")
        out.append(BoundTheorem(name, case.name, "angle", value, statement,
                                "intros T theta th HT Htheta Hth; gappa.",
                                f"pairs {pairs}: |angle - t theta| <= {value:.6g} for t = 0 .. {t_max}",
                                tuple(sorted(g))))
    return out


def table_theorem(case: BoundCase, table: float | None = None, *, angle: float | None = None,
                  state_as: Mapping[str, str] | None = None) -> BoundTheorem:
    """``case``'s table bound (default: the audit's) as a theorem, for angles within ``angle``
    (default: the audit's angle bound) of the exact ones. ``state_as`` as in
    :func:`angle_theorems`."""
    au = _audit(case)
    em, fmt = au.em, _formats(state_as)
    angle = _number("angle", angle, au.angle)
    table = _number("table", table, au.bounds["table"])
    Dt, Dtab = em.dt["trig_dtype"], em.dt["table_dtype"]
    lib = Dt if Dt in ("float64", "float32") else "float32"  # torch evaluates bf16/fp16 cos in float32
    L = 2 * _u(lib)
    cos_v, sin_v = "c", "s"
    if lib != Dt:
        cos_v, sin_v = f"{_RND[fmt(Dt)]} c", f"{_RND[fmt(Dt)]} s"
    elif fmt(Dt) != Dt:  # the library's own format stated otherwise
        cos_v, sin_v = f"{_RND[fmt(Dt)]} c", f"{_RND[fmt(Dt)]} s"
    if Dtab != Dt:
        cos_v, sin_v = f"{_RND[fmt(Dtab)]} ({cos_v})", f"{_RND[fmt(Dtab)]} ({sin_v})"
    name = f"pe_bound_{_ident(case.name)}_table"
    B, Va = dyadic(table), dyadic(angle)
    statement = (
        f"Theorem {name} : forall a A c s : R,\n"
        f"  Rabs (A - a) <= {Va} ->\n"
        f"  Rabs (c - cos A) <= {dyadic(L)} -> Rabs (s - sin A) <= {dyadic(L)} ->\n"
        f"  Rabs ({cos_v} - cos a) <= {B} /\\ Rabs ({sin_v} - sin a) <= {B}.")
    script = ("intros a A c s HA Hc Hs; "
              "assert (H1 : Rabs (cos A - cos a) <= Rabs (A - a)) by apply pe_cos_lip; "
              "assert (H2 : Rabs (sin A - sin a) <= Rabs (A - a)) by apply pe_sin_lip; "
              "assert (H3 := COS_bound a); assert (H4 := SIN_bound a); "
              "assert (H5 := COS_bound A); assert (H6 := SIN_bound A); "
              f"assert (H7 : Rabs (cos A - cos a) <= {Va}) by lra; "
              f"assert (H8 : Rabs (sin A - sin a) <= {Va}) by lra; "
              "clear H1 H2 HA; split; gappa.")
    note = (f"cos/sin within 2 ulp ({lib}) of cos/sin of an angle within {angle:.6g}"
            + (f", rounded to {Dt}" if lib != Dt else "") + (f", held in {Dtab}" if Dtab != Dt else "")
            + f": within {table:.6g}")
    return BoundTheorem(name, case.name, "table", table, statement, script, note)


def output_theorem(case: BoundCase, output: float | None = None, *, table: float | None = None,
                   state_as: Mapping[str, str] | None = None) -> BoundTheorem:
    """``case``'s output bound (default: the audit's) as a theorem, for tables within
    ``table`` (default: the audit's table bound) of the exact ``cos``, ``sin``. ``state_as``
    as in :func:`angle_theorems` (the constants of the proof follow the stated formats)."""
    au = _audit(case)
    em, fmt = au.em, _formats(state_as)
    table = _number("table", table, au.bounds["table"])
    output = _number("output", output, au.bounds["output"])
    R, act = fmt(em.rotation), fmt(em.act)
    pR, eminR = FORMATS[R]
    u, e = _u(R), _eta(R)
    n2 = (1 + _u(em.act)) ** 2
    Tb = Fraction(table)
    h = _sqrt_up(Fraction(2))
    g = _sqrt_up(2 * n2)
    W = _sqrt_up(n2 * (1 + 2 * h * Tb + 2 * Tb * Tb))
    cast = em.rotation != em.act
    if cast:
        pA, eminA = FORMATS[act]
        v, f = _u(act), _eta(act)
        rA, hA = _RND[act], f"(pe_rnd_err ({eminA}) {pA} eq_refl)"
    else:
        v = f = Fraction(0)
        rA, hA = "(fun y : R => y)", "pe_id_err"
    rR = _RND[R]

    def outer(x: str) -> str:
        return f"{_RND[act]} ({x})" if cast else x

    ya = outer(f"{rR} ({rR} (xa * c) - {rR} (xb * s))")
    yb = outer(f"{rR} ({rR} (xa * s) + {rR} (xb * c))")
    O = dyadic(output)
    name = f"pe_bound_{_ident(case.name)}_output"
    ea = f"({ya} - (xa * cos a - xb * sin a))"
    eb = f"({yb} - (xa * sin a + xb * cos a))"
    statement = (
        f"Theorem {name} : forall xa xb c s a : R,\n"
        f"  xa * xa + xb * xb <= {dyadic(n2)} ->\n"
        f"  Rabs (c - cos a) <= {dyadic(Tb)} -> Rabs (s - sin a) <= {dyadic(Tb)} ->\n"
        f"  {ea} * {ea} +\n  {eb} * {eb} <= {O} * {O}.")
    consts = " ".join(dyadic(x) for x in (n2, g, h, W, Tb))
    script = (f"intros xa xb c s a Hx Hc Hs; "
              f"refine (pe_rot_vec {_bpow(u)} {_bpow(e)} {_bpow(v)} {_bpow(f)} {rR} {rA} "
              f"(pe_rnd_err ({eminR}) {pR} eq_refl) {hA} _ _ _ _ {consts} {O} _ _ _ _ _ _ _ _ "
              f"xa xb c s (cos a) (sin a) Hx (pe_cos_sin_sq a) Hc Hs); gappa.")
    note = (f"a pair of norm <= 1 + 2^-{PRECISION[em.act]} rotated in {em.rotation}"
            + (f", cast to {em.act}" if cast else "") + f", tables within {table:.6g}: error vector "
            f"within {output:.6g}")
    return BoundTheorem(name, case.name, "output", output, statement, script, note)


@functools.lru_cache(maxsize=32)
def case_theorems(case: BoundCase) -> CaseTheorems:
    """The theorems stating ``case``'s angle, table and output bounds (those of
    :mod:`pe_symbolic.audit.bounds`, ``angle_bound`` and ``derived_bounds`` at ``t_max =
    context - 1``: the bounds ``pe-audit`` prints), and what is not stated, with the reason.

    >>> ct = case_theorems(CASES[0])
    >>> [t.name for t in ct.theorems if t.kind != "angle"]
    ['pe_bound_float32_table', 'pe_bound_float32_output']
    >>> ct.not_stated
    {'score': 'the score bound is not stated in Coq'}
    """
    au = _audit(case)
    em = au.em
    r, tg = em.recipe, em.target
    skip: dict[str, str] = {"score": "the score bound is not stated in Coq"}
    used = {em.dt[k] for k in ("position_dtype", "angle_dtype", "trig_dtype", "table_dtype")} - {"int64"}
    why = ""
    if r.inv_freq not in ("reciprocal", "pow", "exp", "exp2"):
        why = f"inv_freq={r.inv_freq!r} does not form the angle as one product t * theta"
    elif r.reduce:
        why = "the reduction modulo 2 pi is not modelled"
    elif not used <= set(FORMATS) or (em.storage is not None and em.storage not in FORMATS):
        why = f"a dtype without a Flocq format here ({', '.join(sorted(used - set(FORMATS)))})"
    elif not math.isfinite(au.angle):
        why = f"no finite bound ({au.dominant})"
    if why:
        return CaseTheorems(case, (), au.bounds, {"angle": why, "table": why, "output": why} | skip)
    out = angle_theorems(case)
    if tg.attention != 1.0:
        skip |= {"table": "an attention factor other than 1 is not modelled",
                 "output": "an attention factor other than 1 is not modelled"}
        return CaseTheorems(case, tuple(out), au.bounds, skip)
    out.append(table_theorem(case))
    if tg.kind == "rope":
        R = em.rotation
        if R not in FORMATS or PRECISION[R] < max(PRECISION[em.act], PRECISION[em.dt["table_dtype"]]):
            skip["output"] = (f"the rotation in {R} is narrower than the activations ({em.act}) or the "
                              f"tables ({em.dt['table_dtype']}): their rounding into it is not modelled")
        else:
            out.append(output_theorem(case))
    return CaseTheorems(case, tuple(out), au.bounds, skip)


def bound_theorems(cases: Iterable[BoundCase] = CASES) -> list[BoundTheorem]:
    """Every theorem of every case, in order."""
    return [th for c in cases for th in case_theorems(c).theorems]


def coq_file(theorems: Iterable[BoundTheorem]) -> str:
    """The ``.v`` text: :data:`PRELUDE`, then each theorem with its proof (``coqc`` compiles it)."""
    return PRELUDE + "\n" + "\n".join(th.text() for th in theorems)


# --------------------------------------------------------------------------------------
# checking


@functools.lru_cache(maxsize=1)
def coq_bounds_available() -> str | None:
    """``None`` when Coq, Gappa and the Coq libraries (Flocq, the Gappa plugin) are
    installed; else what is missing, in words."""
    coqc = shutil.which("coqc")
    if shutil.which("coqtop") is None or coqc is None:
        return "Coq is not installed (apt-get install coq)"
    if shutil.which("gappa") is None:
        return "Gappa is not installed (apt-get install gappa)"
    try:
        where = subprocess.run([coqc, "-where"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:  # pragma: no cover - a broken install
        return f"coqc -where failed: {exc}"
    for lib, pkg in (("Flocq/Core/Core.vo", "libcoq-flocq"), ("Gappa/Gappa_tactic.vo", "libcoq-gappa")):
        if not os.path.exists(os.path.join(where, "user-contrib", lib)):
            return f"the Coq library {lib.split('/')[0]} is not installed (apt-get install {pkg})"
    return None


BoundStatus = Literal["checked", "failed", "refused"]


@dataclass(frozen=True)
class BoundResult:
    """What Coq said about one theorem: ``checked`` (saved, only :data:`ALLOWED_AXIOMS`),
    ``failed`` (not proved) or ``refused`` (saved, but on another axiom or ``Admitted``)."""

    theorem: BoundTheorem
    status: BoundStatus
    axioms: tuple[str, ...] = ()
    why: str = ""


@dataclass(frozen=True)
class BoundReport:
    """The statuses of a :func:`check_bounds` run and Coq's wall time."""

    results: tuple[BoundResult, ...]
    elapsed: float
    jobs: int

    def counts(self) -> dict[str, int]:
        """``{"checked": n, "failed": n, "refused": n}``."""
        return {s: sum(r.status == s for r in self.results) for s in ("checked", "failed", "refused")}


_PROMPT = re.compile(r"^(?:\S+ <(?: |$))+")


def _assumptions(segment: str) -> tuple[tuple[str, ...], str]:
    """The axioms ``Print Assumptions`` listed, and '' or what could not be read."""
    lines = []
    for raw in segment.splitlines():
        line = _PROMPT.sub("", raw.rstrip()).rstrip()
        if not line.strip() or line.startswith("Fetching opaque proofs"):
            continue
        lines.append(line)
    if lines == ["Closed under the global context"]:
        return (), ""
    if not lines or lines[0] != "Axioms:":
        return (), "Print Assumptions said: " + " / ".join(lines[:3])
    names = [ln.split()[0] for ln in lines[1:] if not ln[0].isspace()]
    return tuple(names), ""


def _printed(text: str, key: str) -> tuple[tuple[str, ...], str] | None:
    """What ``Print Assumptions`` said between the markers ``pe_bound_begin_KEY`` and
    ``pe_bound_end_KEY`` (``None`` when Coq did not get there)."""
    begin = re.search(rf"pe_bound_begin_{key} is defined\n", text)
    end = re.search(rf"pe_bound_end_{key} is defined", text)
    if begin is None or end is None or end.start() < begin.end():
        return None
    return _assumptions(text[begin.end():end.start()])


def _print(target: str, key: str) -> str:
    return (f"Definition pe_bound_begin_{key} := 0.\nPrint Assumptions {target}.\n"
            f"Definition pe_bound_end_{key} := 0.\n")


def _chunk_text(chunk: Sequence[BoundTheorem], *, per_theorem: bool) -> str:
    """A chunk for ``coqtop``: each theorem (tolerant), then ``Print Assumptions`` of each
    saved theorem (``per_theorem``) or, cheaper (one walk through the libraries), of a pair
    of all of them, built so that a theorem Coq did not save is left out."""
    parts = [PRELUDE, "\n"]
    acc = "tt"
    for k, th in enumerate(chunk):
        parts.append(th.text(tolerant=True))
        if per_theorem:
            parts.append(_print(th.name, th.name))
        else:  # the first line fails when the theorem was not saved, the second when it was
            parts.append(f"Definition pe_bound_acc_{k} := ({acc}, pe_bound_ok_{th.name}).\n"
                         f"Definition pe_bound_acc_{k} := {acc}.\n")
            acc = f"pe_bound_acc_{k}"
    if not per_theorem:
        parts.append(_print(acc, "all"))
    return "".join(parts)


def _run(chunks: Sequence[Sequence[BoundTheorem]], exe: str, *, per_theorem: bool,
         deadline: float) -> tuple[list[str], bool]:
    """Each chunk in its own ``coqtop``, side by side; their outputs, and whether time ran out."""
    outputs: list[str] = []
    timed_out = False
    with tempfile.TemporaryDirectory(prefix="pe_coq_bounds_") as tmp:
        procs = []
        for k, chunk in enumerate(chunks):
            path = os.path.join(tmp, f"bounds{k}.v")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(_chunk_text(chunk, per_theorem=per_theorem))
            fin = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
            procs.append((subprocess.Popen([exe, "-q"], stdin=fin, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True, cwd=tmp), fin))
        for p, fin in procs:
            try:
                out, _ = p.communicate(timeout=max(1.0, deadline - time.perf_counter()))
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
                timed_out = True
            fin.close()
            outputs.append(out or "")
    return outputs, timed_out


def check_bounds(theorems: Sequence[BoundTheorem], *, jobs: int | None = None, timeout: float = 600.0,
                 coqtop: str | None = None) -> BoundReport:
    """Run Coq on every theorem; a status per theorem (:class:`BoundResult`).

    A theorem is ``checked`` when Coq saved it and ``Print Assumptions`` lists only
    :data:`ALLOWED_AXIOMS`. Each process prints the assumptions of all its saved theorems
    at once; where that lists another axiom, the process runs again with a ``Print
    Assumptions`` per theorem, so that only the theorems that depend on it are ``refused``.

    Parameters
    ----------
    theorems : sequence of BoundTheorem
        What :func:`case_theorems` stated (or any theorems of that shape).
    jobs : int, optional
        Coq processes side by side (default: the number of CPUs, at most 4).
    timeout : float
        Seconds the whole run may take; theorems not reached count as ``failed``.
    coqtop : str, optional
        The ``coqtop`` executable (default: found on ``PATH``).

    Raises
    ------
    FileNotFoundError
        When Coq, Gappa or the Coq libraries are not installed (:func:`coq_bounds_available`).
    """
    exe = coqtop or shutil.which("coqtop")
    missing = coq_bounds_available() if coqtop is None else None
    if exe is None or missing:
        raise FileNotFoundError(missing or "Coq is not installed (apt-get install coq)")
    if not timeout > 0:
        raise ValueError(f"timeout={timeout!r} must be positive")
    names = [th.name for th in theorems]
    if len(set(names)) != len(names):
        raise ValueError("theorem names must be distinct")
    jobs = max(1, min(jobs or min(os.cpu_count() or 1, 4), len(theorems) or 1))
    chunks = [list(theorems[k::jobs]) for k in range(jobs)]
    t0 = time.perf_counter()
    deadline = t0 + timeout
    outputs, timed_out = _run(chunks, exe, per_theorem=False, deadline=deadline)
    status: dict[str, BoundResult] = {}
    again: list[list[BoundTheorem]] = []
    for chunk, out in zip(chunks, outputs):
        saved = [th for th in chunk if re.search(rf"pe_bound_ok_{re.escape(th.name)} is defined\n", out)]
        for th in chunk:
            if th not in saved:
                status[th.name] = BoundResult(th, "failed", why="the run timed out" if timed_out else
                                              "Coq did not accept the proof")
        said = _printed(out, "all")
        if said is not None and not said[1] and all(a in ALLOWED_AXIOMS for a in said[0]):
            for th in saved:
                status[th.name] = BoundResult(th, "checked", said[0])
        elif saved:
            again.append(saved)
    if again:
        outputs, timed_out = _run(again, exe, per_theorem=True, deadline=deadline)
        for chunk, out in zip(again, outputs):
            for th in chunk:
                said = _printed(out, re.escape(th.name))
                if said is None:
                    status[th.name] = BoundResult(th, "failed", why="the run timed out" if timed_out else
                                                  "Coq did not accept the proof on the second run")
                    continue
                axioms, unread = said
                bad = [a for a in axioms if a not in ALLOWED_AXIOMS]
                status[th.name] = (BoundResult(th, "refused", axioms, unread or f"depends on {', '.join(bad)}")
                                   if unread or bad else BoundResult(th, "checked", axioms))
    return BoundReport(tuple(status[th.name] for th in theorems), time.perf_counter() - t0, jobs)
