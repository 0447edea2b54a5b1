"""The docstrings LAB RBF's two estimators share (:mod:`nplk_core.lab_rbf`): their
parameters, attributes, the notes on how the bandwidths are trained, and the paper."""

_PARAMS_DOC = """
    Parameters
    ----------
    n_support : int, default=30
        Number of support points ``N_max`` (the "support count"). Above ``n_samples`` it
        is clipped to ``n_samples`` with a UserWarning (the parameter keeps its value).
    lam : float > 0, default=1e-3
        Ridge ``lambda`` of the asymmetric KRR; ``f`` interpolates the support data as
        ``lam -> 0``. Strictly positive: the asymmetric ``K_sv^T`` is not PSD, and
        ``lam = 0`` makes the solve singular as soon as two support points coincide.
    kernel : {"gaussian", "laplace"}, default="gaussian"
        ``exp(-||theta_i o (x_i - x)||^2)`` (paper) or ``exp(-||theta_i o (x_i - x)||)``
        (the authors' public code).
    bandwidth_init : "auto", float > 0 or None, default="auto"
        Initial bandwidth of every support point, in the internal units (features
        scaled to [-1, 1]). None: the authors' ``sqrt(30 / d)``. "auto": the single
        global bandwidth ``sqrt(30 / d) * 2^(k/2)``, ``k = -6..10``, with the smallest
        training loss for the initial support set (the LAB RBF paper, §3, suggests a global RBF
        bandwidth tuned on the training data); 17 loss evaluations, no gradients.
    optimizer : {"lbfgs", "adam"}, default="lbfgs"
        ``"lbfgs"``: scipy L-BFGS-B with the exact gradient and bounds ``theta >= 0``.
        ``"adam"``: minibatch Adam (``learning_rate``, ``batch_size``, gradient-norm
        ``clip``), projected onto ``theta >= 0`` after each step.
    max_iter : int, default=1000
        Iterations per support stage: L-BFGS-B iterations, or Adam epochs (full passes
        over the training points). Only the last stage's cap warns. At the lab's page
        defaults every last stage meets ``tol`` in 22-814 iterations (earlier stages at
        100 support points may use all 1,000 without ``stage_max_iter``, which the
        lab's pages set to 50); the former default 200 cut 3 of the 9 built-in data
        sets short with a ConvergenceWarning.
    stage_max_iter : int or None, default=None
        Iterations of every dynamic-selection stage before the one at ``n_support``
        (capped by ``max_iter``); the stage at ``n_support`` keeps ``max_iter``. Those
        stages only choose the points added next and give the next stage its start.
        None: every stage runs to ``tol``. A cap changes the fit (other points join);
        ``docs/lab-rbf-stage-iterations.md`` measures what it costs in accuracy.
    tol : float >= 0, default=1e-6
        Optimiser tolerance on the loss, which is measured on standardised targets
        (a fraction of ``var(y)``). L-BFGS-B: a stage converges when the loss decreased
        by less than ``tol * max(loss, 1)`` on 2 consecutive iterations (one short
        line-search step is not convergence), or when the projected gradient is below
        ``tol``. Adam: the relative change of the full training loss between epochs.
    support_selection : {"dynamic", "sorted", "random"}, default="dynamic"
        ``"dynamic"``: Alg. 1 (start with ``n_initial`` points at evenly spaced ranks of
        the sorted ``y``, train, add the ``k = min(max(10, N // 10), N_max - N)``
        training points with the largest ``|error|``, each with the bandwidth of its
        nearest support point (Alg. 1: the mean bandwidth), repeat until
        ``N = n_support`` or all errors are below ``error_tol``). A stage starts from
        one shared bandwidth instead (the ``bandwidth_init="auto"`` grid) when that has
        the smaller training loss on the new support set (``stages_["shared_start"]``).
        ``"sorted"``: ``n_support`` points at evenly spaced ranks of the sorted ``y``, one stage.
        ``"random"``: ``n_support`` random points, one stage.
    n_initial : int or None, default=None
        ``N_0`` of the dynamic selection; None: ``min(n_support, max(10, n_support // 3))``.
    error_tol : float >= 0 or None, default=None
        Dynamic selection stops growing once every ``|f(x_j) - y_j|`` on the training
        points is below this (in units of ``y``). None: grow to ``n_support``.
    learning_rate, batch_size, clip : Adam settings (authors: 1e-2, 128, 10).
        ``clip=None`` disables gradient-norm clipping.
    validation_fraction : float in (0, 1) or None, default=0.2
        Share of the non-support points held out for model selection
        (``round(validation_fraction * (n_samples - n_support))`` points at evenly spaced
        positions of the data order; never support or training points). Each stage keeps
        its iterate with the smallest validation loss (the optimiser still runs to
        ``tol``: stopping early lost accuracy, measured); at the end one shared bandwidth
        on the final support set (the grid of ``bandwidth_init="auto"``, chosen on the
        training points) replaces the trained bandwidths if its validation loss is
        smaller, so the fit is never worse on the validation points than a one-bandwidth
        kernel ridge on the same supports. None: the paper's procedure (train on every
        non-support point, keep the last iterate).
    bandwidth_bounds : "auto" or None, default="auto"
        ``"auto"``: ``0 <= theta_il <= 3 / h`` (internal units), ``h`` the median
        nearest-neighbour distance of the training data. A Gaussian narrower than the
        data spacing touches no training point but its own: the loss cannot judge it,
        and such spikes only interpolate the noise of their support point. None:
        ``theta >= 0`` only (the paper).
    callback : callable or None
        ``callback(iteration, state, elapsed)`` after every optimiser iteration;
        ``state`` holds ``"loss"``, ``"theta"`` (internal units), ``"stage"``,
        ``"support_size"``. Returning True stops the fit (``converged_ = False``).
    random_state : int, RandomState or None
        Seeds the random selection and Adam's minibatches.
"""

_ATTRS_DOC = """
    Attributes
    ----------
    support_ : ndarray of shape (N,)
        Indices of the support points in the training data, in the order they were
        added (stage ``s`` uses the first ``stages_["support_size"][s]`` of them).
    support_vectors_ : ndarray of shape (N, d)
        The support points, original units.
    bandwidths_ : ndarray of shape (N, d)
        Learned ``theta_i`` in ORIGINAL data units: ``k(x_i, x) =
        exp(-||bandwidths_[i] o (x_i - x)||^2)`` on unscaled data.
    bandwidths_scaled_ : ndarray of shape (N, d)
        The same in the internal units (features scaled to [-1, 1]); ``bandwidths_ =
        bandwidths_scaled_ / x_scale_``.
    x_center_, x_scale_ : ndarray of shape (d,)
        The internal scaler ``x -> (x - x_center_) / x_scale_`` mapping the training
        range of each feature to [-1, 1] (constant features: scale 1).
    dual_coef_ : ndarray of shape (N,)
        ``alpha`` (units of ``y``); ``f(x) = sum_i dual_coef_[i] k(x_i, x) + intercept_``.
    intercept_ : float
        ``beta_0 = mean(y_sv)``.
    bandwidth_init_ : float
        The initial bandwidth actually used (internal units).
    bandwidth_bounds_ : tuple of float
        ``(low, high)`` bounds on every ``theta_il`` (internal units).
    validation_ : ndarray of int
        Indices of the validation points in the training data (empty without validation).
    fallback_global_ : bool
        Whether the shared bandwidth replaced the trained ones (see
        ``validation_fraction``); ``staged_predict`` still yields the trained stages.
    history_ : dict of ndarray
        One row per optimiser iteration over all stages: ``"loss"`` (bandwidth-training
        loss on the non-support points, as a fraction of ``var(y)``), ``"step_norm"``,
        ``"grad_norm"`` (L-BFGS-B projected gradient), ``"batch_loss"`` (Adam: mean
        minibatch loss of the epoch), ``"val_loss"`` (on the validation points, same
        units as ``"loss"``), ``"support_size"``, ``"stage"`` (changes at stage
        boundaries), ``"time"``.
    stages_ : dict of ndarray
        One row per support stage: ``"support_size"``, ``"loss_start"``, ``"loss"``,
        ``"n_iter"``, ``"first_iteration"`` (row of ``history_`` where the stage starts),
        ``"max_abs_error"`` (on the remaining training points, units of ``y``),
        ``"converged"``, ``"val_loss"`` (of the stage's kept iterate), ``"shared_start"``
        (1 where the stage started from one shared bandwidth because that had a smaller
        training loss than the bandwidths inherited from the previous stage).
        ``staged_predict`` gives the model after each stage.
    n_iter_ : int
        Total optimiser iterations (rows of ``history_``).
    converged_ : bool
        Whether the last stage met ``tol`` (False when the callback stopped the fit).
    n_features_in_ : int
"""

_TRAINING_NOTE = """
    Notes
    -----
    The bandwidths are trained on the NON-support points only (the LAB RBF paper, Fig. 2a: the
    support data fix ``alpha``, the rest train ``theta``). On a support point ``f``
    equals ``y_j - lam alpha_j`` whatever ``theta`` is, so adding those residuals would
    only add a ``lam^2 ||alpha||^2`` term that says nothing about generalisation.
    Features are scaled to [-1, 1] internally (as the authors do) and ``y`` is
    standardised for the optimiser, so ``tol`` and the loss are scale-free. The bounds
    ``theta >= 0`` (rather than a ``log theta`` parametrisation) keep ``theta_il = 0``
    reachable: a support point may ignore a feature.

    Robust defaults (measured in ``benchmarks/bench_lab_rbf.py``): with the
    paper's procedure the fit on ``sin(2 x^3)`` and on the chirp (noise 0.1) fell below
    one-bandwidth kernel ridge on its own support points on 3 of 20 toy/seed settings and
    once to R² -8 (a flat ``theta = 0`` kernel with huge coefficients, spikes above the
    data spacing, and Alg. 1's mean bandwidth for added points dragged by them).
    Validation selection, the bandwidth bound and the nearest-point bandwidth for added
    points (Alg. 1 uses the mean) remove all three (worst margin +0.038; without the
    validation -0.14, with the mean bandwidth -0.10). It is not a guarantee against that
    reference, which picks sigma and lambda on the test grid: on seeds 5-9, 3 of 20
    settings stay up to 0.06 below it. ``validation_fraction=None,
    bandwidth_bounds=None`` restore the paper's training but keep the nearest-point rule.

    The loss is far from convex: floating-point rounding alone (the faster
    evaluation, which shares one kernel pass, sums in another order) sends L-BFGS-B to
    other iterates and other support sets, so single settings move in R² between
    equivalent implementations (that evaluation against the former code: from 0.04
    below to 0.03 above it on the 20 settings above; one setting moved by 0.13 under
    another stopping rule). Over the 20, mean R² 0.941 (0.939 before), worst margin
    +0.014.

    Stage starts (``stages_["shared_start"]``): SciPy 1.15 ported L-BFGS-B from Fortran
    to C, and from the same inherited start it ends in other optima (chirp n = 100 seed 0:
    R² 0.98 with SciPy 1.13, 0.70 with 1.15-1.17). Letting each later stage start from
    the best shared bandwidth when that has the smaller training loss raised the mean R²
    over seeds 0-9 of chirp(1-15) n = 300, sin n = 300, chirp n = 300 and chirp n = 100
    from 0.909 / 0.924 / 0.935 / 0.908 to 0.968 / 0.944 / 0.965 / 0.947 with SciPy 1.17
    (from 0.932 / 0.931 / 0.932 / 0.938 to 0.971 / 0.943 / 0.955 / 0.950 with SciPy 1.13).

    That reference fits its coefficients to the 30 support points only. Against kernel
    ridge with one bandwidth whose coefficients are fitted to ALL training points on the
    same supports (subset of regressors, bandwidth and ridge chosen on a validation split),
    the paper's model is below at 9-10 of 10 noisy toy seeds: its coefficients interpolate
    the noisy support labels (``f(x_j) = y_j - lam alpha_j``), which no bandwidth can undo
    (``docs/lab-rbf-against-one-bandwidth.md``). With noisy data choose ``lam``
    on validation data: :class:`nplk_core.lab_rbf_select.LABRBFRegressorCV`.

    Both halves (``benchmarks/bench_lab_rbf_halves.py``, 10 seeds each of the
    noisy chirp, sin 2x³, the noisy step, the noiseless chirp and diabetes, 30 supports):
    inside the paper's model the learned bandwidths beat one shared bandwidth chosen on the
    validation points at 45 of 50 seeds (10/10, 10/10, 9/10, 10/10 on the 1-D sets, 6/10
    on diabetes, where the interval includes 0); the paper's fit is below the
    one-bandwidth ridge fitted to all points at 40 of 40 noisy seeds. The learned
    bandwidths with coefficients fitted to all points (:func:`lab_fit_alpha_all`, not the
    paper's) lie between: above the paper's fit at 45 of 50, above the one-bandwidth
    ridge at 12 of 50, so no estimator option offers them.
"""


_REFERENCES = """
    References
    ----------
    .. [1] F. He, M. He, L. Shi, X. Huang and J. A. K. Suykens, "Enhancing Kernel
       Flexibility via Learning Asymmetric Locally-Adaptive Kernels", arXiv:2310.05236,
       2023.
"""
