# Type hints of the public API of the probity package (PEP 561 stub, shipped with py.typed).
# python/tests/test_stub.py checks that every public name of the module has an entry here, with
# the parameters of the function; scripts/gen-python-stub.py writes the methods of class Engine
# from the module functions that run on an engine (@_engine_function in __init__.py).
import os
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, os.PathLike]
_Floats = Union[Sequence[float], npt.NDArray[np.float64]]
_Columns = Union[str, Sequence[str], None]
_Metric = Union[str, Callable[[List[str], List[List[str]]], Sequence[float]], "PythonMetric"]
_Metrics = Union[_Metric, Sequence[_Metric]]
_DataFrame = Any  # pandas.DataFrame; pandas is optional
_DatasetLike = Union["Dataset", _Path, _DataFrame]

class InputError(ValueError):
    file: str
    line: int
    field: str

class UsageError(ValueError): ...

class BatchPending(RuntimeError): ...

class BudgetExceeded(RuntimeError): ...

class OutputError(OSError):
    path: str

class Reference:
    id: str
    text: str

class Candidate:
    id: str
    system: str
    text: str
    human: Dict[str, List[float]]
    def human_mean(self, dimension: str) -> float: ...

class Preference:
    a: str
    b: str
    preferred: str

class Task:
    task_id: str
    group: str
    source: str
    lang: str
    references: List[Reference]
    candidates: List[Candidate]
    pairs: List[Preference]
    line: int

class SkipRecord:
    file: str
    line: int
    field: str
    message: str

class Dataset:
    path: str
    tasks: List[Task]
    skipped: List[SkipRecord]
    def num_candidates(self) -> int: ...
    def dimensions(self) -> List[str]: ...
    def __len__(self) -> int: ...
    def items(self) -> List[Tuple[str, str]]: ...
    def texts(self) -> List[str]: ...
    def references(self) -> List[List[str]]: ...
    def systems(self) -> List[str]: ...
    def human(self, dimension: str) -> npt.NDArray[np.float64]: ...
    @staticmethod
    def from_records(
        records: Iterable[Mapping[str, Any]],
        task: Optional[str] = ...,
        candidate: str = ...,
        reference: _Columns = ...,
        human: Union[_Columns, Mapping[str, str]] = ...,
        system: Optional[str] = ...,
        candidate_id: Optional[str] = ...,
        source: Optional[str] = ...,
        group: Optional[str] = ...,
        name: str = ...,
        skip_invalid: bool = ...,
    ) -> Dataset: ...
    @staticmethod
    def from_pandas(
        df: _DataFrame,
        task: Optional[str] = ...,
        candidate: str = ...,
        reference: _Columns = ...,
        human: Union[_Columns, Mapping[str, str]] = ...,
        system: Optional[str] = ...,
        candidate_id: Optional[str] = ...,
        source: Optional[str] = ...,
        group: Optional[str] = ...,
        name: str = ...,
        skip_invalid: bool = ...,
    ) -> Dataset: ...
    def to_pandas(self) -> _DataFrame: ...

class PythonMetric:
    fn: Callable[..., Sequence[float]]
    name: str
    signature: Optional[str]
    def __init__(
        self,
        fn: Callable[[List[str], List[List[str]]], Sequence[float]],
        name: Optional[str] = ...,
        signature: Optional[str] = ...,
    ) -> None: ...
    @property
    def record_name(self) -> str: ...
    def full_signature(self, run_id: Optional[str] = ...) -> str: ...
    def __call__(
        self,
        candidates: List[str],
        references: List[List[str]],
        sources: Optional[List[str]] = ...,
    ) -> List[float]: ...

class Scores(Dict[str, npt.NDArray[np.float64]]):
    signatures: Dict[str, str]
    item_ids: Optional[List[Tuple[str, str]]]
    corpus: Optional[Dict[str, float]]
    corpus_by_system: Optional[Dict[str, Dict[str, float]]]
    def __init__(
        self,
        *args: Any,
        signatures: Optional[Mapping[str, str]] = ...,
        items: Optional[Iterable[Tuple[str, str]]] = ...,
        **kwargs: Any,
    ) -> None: ...
    def to_pandas(self) -> _DataFrame: ...

class AttackResult(Dict[str, Any]):
    def text(self) -> str: ...

class AuditReport(Dict[str, Any]):
    def correlation_rows(self) -> List[Dict[str, Any]]: ...
    def to_pandas(self, table: str = ...) -> _DataFrame: ...
    def _repr_html_(self) -> str: ...

class PerturbResult(NamedTuple):
    status: str
    text: Optional[str]
    note: str

class CorrelationResult(NamedTuple):
    statistic: float
    pvalue: float

class PairedTResult(NamedTuple):
    n: int
    mean_delta: float
    sd_delta: float
    t: float
    df: float
    p_two_sided: float
    p_less: float
    p_greater: float
    smd: float
    smd_ci_half_width: float

class MultipleTestingResult(NamedTuple):
    adjusted: npt.NDArray[np.float64]
    reject: List[bool]

class BootstrapResult(NamedTuple):
    estimate: float
    ci_low: float
    ci_high: float
    standard_error: float
    undefined: int
    distribution: npt.NDArray[np.float64]

class PermutationResult(NamedTuple):
    delta: float
    p: float
    extreme: int
    permutations: int

class LevelResult(NamedTuple):
    value: float
    n: int
    groups: int
    skipped: int
    epsilon: float

def metrics() -> List[Dict[str, Any]]: ...
def signature(metric: str) -> str: ...
def strategies(kind: Optional[str] = ...) -> List[Dict[str, Any]]: ...
def load_dataset(
    path: _Path,
    skip_invalid: bool = ...,
    *,
    format: Optional[str] = ...,
    map: Optional[str] = ...,
) -> Dataset: ...
def score_dataset(
    dataset: _DatasetLike,
    metrics: _Metrics,
    threads: int = ...,
    progress: Optional[Callable[[int, int], Any]] = ...,
) -> Scores: ...
def score(
    metric: _Metric,
    candidates: Sequence[str],
    references: Sequence[Union[str, Sequence[str]]],
    *,
    sources: Optional[Sequence[str]] = ...,
    negatives: Optional[Sequence[Sequence[str]]] = ...,
    threads: int = ...,
) -> npt.NDArray[np.float64]: ...
def bleu_from_stats(
    correct: Sequence[float],
    total: Sequence[float],
    sys_len: float,
    ref_len: float,
    smooth_method: str = ...,
    smooth_value: Optional[float] = ...,
    effective_order: bool = ...,
) -> Dict[str, Any]: ...

def score_parts(
    metric: str,
    candidates: Sequence[str],
    references: Sequence[Union[str, Sequence[str]]],
    *,
    sources: Optional[Sequence[str]] = ...,
    negatives: Optional[Sequence[Sequence[str]]] = ...,
    threads: int = ...,
) -> Dict[str, npt.NDArray[np.float64]]: ...
def corpus_score(
    metric: str,
    candidates: Sequence[str],
    references: Sequence[Union[str, Sequence[str]]],
    *,
    sources: Optional[Sequence[str]] = ...,
    negatives: Optional[Sequence[Sequence[str]]] = ...,
    threads: int = ...,
) -> float: ...
def perturb(
    dataset: _DatasetLike, kind: str, code: str, seed: int = ..., threads: int = ...
) -> List[PerturbResult]: ...
def paired_test(
    systems: Sequence[Sequence[str]],
    references: Sequence[Union[str, Sequence[str]]],
    *,
    metrics: Union[str, Sequence[str]] = ...,
    test: str = ...,
    samples: int = ...,
    seed: int = ...,
    threads: int = ...,
) -> Dict[str, Dict[str, Any]]: ...
def significance(
    data: _DatasetLike,
    metrics: Optional[Union[str, Sequence[str]]] = ...,
    *,
    test: Optional[str] = ...,
    samples: Optional[int] = ...,
    seed: Optional[int] = ...,
    baseline: Optional[str] = ...,
    clusters: Optional[bool] = ...,
    correction: Optional[str] = ...,
    alpha: Optional[float] = ...,
    threads: Optional[int] = ...,
    skip_invalid: bool = ...,
) -> Dict[str, Any]: ...
def rouge_bootstrap(
    candidates: Sequence[str],
    references: Sequence[Union[str, Sequence[str]]],
    *,
    types: Sequence[str] = ...,
    n_samples: int = ...,
    confidence_interval: float = ...,
    seed: int = ...,
    threads: int = ...,
) -> Dict[str, Dict[str, Dict[str, float]]]: ...
def pearson(x: _Floats, y: _Floats) -> CorrelationResult: ...
def spearman(x: _Floats, y: _Floats) -> CorrelationResult: ...
def kendall_tau_b(x: _Floats, y: _Floats) -> CorrelationResult: ...
def kendall_tau_c(x: _Floats, y: _Floats) -> CorrelationResult: ...
def correlation(x: _Floats, y: _Floats, type: str = ...) -> float: ...
def level_statistic(
    gold: _Floats,
    metric: _Floats,
    task: Sequence[str],
    *,
    level: str = ...,
    statistic: str = ...,
    system: Optional[Sequence[str]] = ...,
) -> LevelResult: ...
def paired_t(perturbed: _Floats, original: _Floats) -> PairedTResult: ...
def holm(p: _Floats, alpha: float = ...) -> MultipleTestingResult: ...
def benjamini_hochberg(p: _Floats, alpha: float = ...) -> MultipleTestingResult: ...
def cem_ord(pred: Sequence[int], gold: Sequence[int], levels: int) -> float: ...
def bootstrap_correlation(
    x: _Floats,
    y: _Floats,
    correlation: str = ...,
    *,
    resamples: int = ...,
    confidence: float = ...,
    method: str = ...,
    seed: int = ...,
    threads: int = ...,
    clusters: Optional[Sequence[Any]] = ...,
) -> BootstrapResult: ...
def permutation_correlation_diff(
    a: _Floats,
    b: _Floats,
    human: _Floats,
    correlation: str = ...,
    *,
    permutations: int = ...,
    alternative: str = ...,
    seed: int = ...,
    threads: int = ...,
    add_one: bool = ...,
    standardize: bool = ...,
) -> PermutationResult: ...
def correlate(
    scores: Union[Scores, Mapping[str, _Floats], _Floats],
    human: Union[Dataset, Mapping[str, _Floats], _Floats],
    *,
    dimensions: Optional[Sequence[str]] = ...,
    bootstrap: int = ...,
    confidence: float = ...,
    seed: int = ...,
    threads: int = ...,
    level: Union[str, Sequence[str], None] = ...,
    statistic: Union[str, Sequence[str], None] = ...,
    baselines: bool = ...,
    resample: str = ...,
) -> List[Dict[str, Any]]: ...
def rank_protocol(
    protocol: str,
    mtme: _Path,
    *,
    lps: Union[str, Sequence[str], None] = ...,
    primary: Union[str, Sequence[str], None] = ...,
    all_metrics: bool = ...,
    permutations: Optional[int] = ...,
    seed: Optional[int] = ...,
    alpha: Optional[float] = ...,
    threads: Optional[int] = ...,
    mqm_weights: Optional[str] = ...,
    mqm_ratings: Optional[str] = ...,
    probity_coins: bool = ...,
) -> Dict[str, Any]: ...
def power(
    *,
    effect: Optional[float] = ...,
    n: Optional[float] = ...,
    power: Optional[float] = ...,
    alpha: float = ...,
    alternative: str = ...,
    sd_delta: Optional[float] = ...,
    pooled_sd: Optional[float] = ...,
    correlation: Optional[Tuple[float, float]] = ...,
    report: Union[_Path, Mapping[str, Any], None] = ...,
) -> List[Dict[str, Any]]: ...
def compare(
    scores: Union[Scores, Mapping[str, _Floats]],
    human: Union[Dataset, Mapping[str, _Floats], _Floats],
    *,
    metrics: Optional[Sequence[str]] = ...,
    dimensions: Optional[Sequence[str]] = ...,
    correlation: str = ...,
    permutations: int = ...,
    seed: int = ...,
    threads: int = ...,
) -> List[Dict[str, Any]]: ...
def audit(
    data: Union[_DatasetLike, Sequence[_DatasetLike]],
    metrics: _Metrics,
    degrade: Union[str, Sequence[str], None] = ...,
    manipulate: Union[str, Sequence[str], None] = ...,
    sample: Optional[int] = ...,
    seed: int = ...,
    bootstrap: int = ...,
    out: Optional[_Path] = ...,
    threads: int = ...,
    *,
    alpha: float = ...,
    margin: float = ...,
    test: str = ...,
    confidence: float = ...,
    skip_invalid: bool = ...,
    progress: Optional[Callable[[str, int, int], Any]] = ...,
    suite: Optional[str] = ...,
    min_applied: int = ...,
    dimensions: Union[str, Sequence[str], None] = ...,
) -> AuditReport: ...
def attack(
    data: _DatasetLike,
    metrics: _Metrics,
    *,
    sample: int = ...,
    skip_invalid: bool = ...,
    lang: str = ...,
    strategy: Optional[str] = ...,
    budget: Optional[int] = ...,
    steps: Optional[int] = ...,
    beam: Optional[int] = ...,
    proposals: Optional[int] = ...,
    guard: Optional[str] = ...,
    families: Union[str, Sequence[str], None] = ...,
    family: Union[str, Sequence[str], None] = ...,
    copy_source: Optional[bool] = ...,
    delta: Optional[float] = ...,
    program_length: Optional[int] = ...,
    programs: Optional[int] = ...,
    split: Optional[float] = ...,
    alpha: Optional[float] = ...,
    margin: Optional[float] = ...,
    bootstrap: Optional[int] = ...,
    confidence: Optional[float] = ...,
    min_applied: Optional[int] = ...,
    seed: Optional[int] = ...,
    threads: Optional[int] = ...,
    examples: Optional[int] = ...,
    tolerance: Optional[float] = ...,
    phrase_words: Optional[int] = ...,
    phrase_candidates: Optional[int] = ...,
    suffix_words: Optional[int] = ...,
    suffix_iterations: Optional[int] = ...,
    transfer_endpoint: Optional[str] = ...,
    fit: Optional[bool] = ...,
) -> AttackResult: ...
def format_report(
    report: Union[Mapping[str, Any], _Path], format: str = ..., unicode: bool = ...
) -> str: ...
def write_report(report: Union[Mapping[str, Any], _Path], out: _Path) -> None: ...
def configure_llm(
    config: Optional[_Path] = ...,
    *,
    base_url: Optional[str] = ...,
    model: Optional[str] = ...,
    api_key_env: Optional[str] = ...,
    concurrency: Optional[int] = ...,
    cache: Optional[_Path] = ...,
    cache_mode: Optional[str] = ...,
    structured: Optional[str] = ...,
    server: Optional[str] = ...,
    max_tokens: Optional[int] = ...,
    batch: Optional[str] = ...,
    batch_dir: Optional[_Path] = ...,
    budget_usd: Optional[float] = ...,
) -> None: ...
def disconnect_llm() -> None: ...
def llm_usage() -> Optional[Dict[str, Any]]: ...

def cache_stats(cache: _Path) -> Dict[str, Any]: ...
def cache_batches(cache: _Path) -> List[Dict[str, Any]]: ...
def cache_import(cache: _Path, files: Union[_Path, Sequence[_Path]]) -> Dict[str, int]: ...
def cache_export(cache: _Path, out: _Path) -> int: ...
def cache_merge(cache: _Path, files: Union[_Path, Sequence[_Path]]) -> Dict[str, int]: ...

class Engine:
    def __init__(self, config: Optional[_Path] = ..., **llm: Any) -> None: ...
    # Generated by scripts/gen-python-stub.py from the module functions: do not edit.
    def metrics(self) -> List[Dict[str, Any]]: ...
    def signature(self, metric: str) -> str: ...
    def strategies(self, kind: Optional[str] = ...) -> List[Dict[str, Any]]: ...
    def score_dataset(
        self,
        dataset: _DatasetLike,
        metrics: _Metrics,
        threads: int = ...,
        progress: Optional[Callable[[int, int], Any]] = ...,
    ) -> Scores: ...
    def score(
        self,
        metric: _Metric,
        candidates: Sequence[str],
        references: Sequence[Union[str, Sequence[str]]],
        *,
        sources: Optional[Sequence[str]] = ...,
        negatives: Optional[Sequence[Sequence[str]]] = ...,
        threads: int = ...,
    ) -> npt.NDArray[np.float64]: ...
    def score_parts(
        self,
        metric: str,
        candidates: Sequence[str],
        references: Sequence[Union[str, Sequence[str]]],
        *,
        sources: Optional[Sequence[str]] = ...,
        negatives: Optional[Sequence[Sequence[str]]] = ...,
        threads: int = ...,
    ) -> Dict[str, npt.NDArray[np.float64]]: ...
    def corpus_score(
        self,
        metric: str,
        candidates: Sequence[str],
        references: Sequence[Union[str, Sequence[str]]],
        *,
        sources: Optional[Sequence[str]] = ...,
        negatives: Optional[Sequence[Sequence[str]]] = ...,
        threads: int = ...,
    ) -> float: ...
    def paired_test(
        self,
        systems: Sequence[Sequence[str]],
        references: Sequence[Union[str, Sequence[str]]],
        *,
        metrics: Union[str, Sequence[str]] = ...,
        test: str = ...,
        samples: int = ...,
        seed: int = ...,
        threads: int = ...,
    ) -> Dict[str, Dict[str, Any]]: ...
    def significance(
        self,
        data: _DatasetLike,
        metrics: Optional[Union[str, Sequence[str]]] = ...,
        *,
        test: Optional[str] = ...,
        samples: Optional[int] = ...,
        seed: Optional[int] = ...,
        baseline: Optional[str] = ...,
        clusters: Optional[bool] = ...,
        correction: Optional[str] = ...,
        alpha: Optional[float] = ...,
        threads: Optional[int] = ...,
        skip_invalid: bool = ...,
    ) -> Dict[str, Any]: ...
    def rouge_bootstrap(
        self,
        candidates: Sequence[str],
        references: Sequence[Union[str, Sequence[str]]],
        *,
        types: Sequence[str] = ...,
        n_samples: int = ...,
        confidence_interval: float = ...,
        seed: int = ...,
        threads: int = ...,
    ) -> Dict[str, Dict[str, Dict[str, float]]]: ...
    def perturb(
        self,
        dataset: _DatasetLike, kind: str, code: str, seed: int = ..., threads: int = ...
    ) -> List[PerturbResult]: ...
    def audit(
        self,
        data: Union[_DatasetLike, Sequence[_DatasetLike]],
        metrics: _Metrics,
        degrade: Union[str, Sequence[str], None] = ...,
        manipulate: Union[str, Sequence[str], None] = ...,
        sample: Optional[int] = ...,
        seed: int = ...,
        bootstrap: int = ...,
        out: Optional[_Path] = ...,
        threads: int = ...,
        *,
        alpha: float = ...,
        margin: float = ...,
        test: str = ...,
        confidence: float = ...,
        skip_invalid: bool = ...,
        progress: Optional[Callable[[str, int, int], Any]] = ...,
        suite: Optional[str] = ...,
        min_applied: int = ...,
        dimensions: Union[str, Sequence[str], None] = ...,
    ) -> AuditReport: ...
    def attack(
        self,
        data: _DatasetLike,
        metrics: _Metrics,
        *,
        sample: int = ...,
        skip_invalid: bool = ...,
        lang: str = ...,
        strategy: Optional[str] = ...,
        budget: Optional[int] = ...,
        steps: Optional[int] = ...,
        beam: Optional[int] = ...,
        proposals: Optional[int] = ...,
        guard: Optional[str] = ...,
        families: Union[str, Sequence[str], None] = ...,
        family: Union[str, Sequence[str], None] = ...,
        copy_source: Optional[bool] = ...,
        delta: Optional[float] = ...,
        program_length: Optional[int] = ...,
        programs: Optional[int] = ...,
        split: Optional[float] = ...,
        alpha: Optional[float] = ...,
        margin: Optional[float] = ...,
        bootstrap: Optional[int] = ...,
        confidence: Optional[float] = ...,
        min_applied: Optional[int] = ...,
        seed: Optional[int] = ...,
        threads: Optional[int] = ...,
        examples: Optional[int] = ...,
        tolerance: Optional[float] = ...,
        phrase_words: Optional[int] = ...,
        phrase_candidates: Optional[int] = ...,
        suffix_words: Optional[int] = ...,
        suffix_iterations: Optional[int] = ...,
        transfer_endpoint: Optional[str] = ...,
        fit: Optional[bool] = ...,
    ) -> AttackResult: ...
    def configure_llm(
        self,
        config: Optional[_Path] = ...,
        *,
        base_url: Optional[str] = ...,
        model: Optional[str] = ...,
        api_key_env: Optional[str] = ...,
        concurrency: Optional[int] = ...,
        cache: Optional[_Path] = ...,
        cache_mode: Optional[str] = ...,
        structured: Optional[str] = ...,
        server: Optional[str] = ...,
        max_tokens: Optional[int] = ...,
        batch: Optional[str] = ...,
        batch_dir: Optional[_Path] = ...,
        budget_usd: Optional[float] = ...,
    ) -> None: ...
    def disconnect_llm(self) -> None: ...
    def llm_usage(self) -> Optional[Dict[str, Any]]: ...
    # End of the generated methods.
