// Reads the CSV rows of netcond-red-dumbbell runs (any number of files,
// header lines allowed anywhere), and for each setup (the rows' label) and
// ECN setting compares ns-3's RedQueueDisc ("ns3") with NetcondRedQueueDisc
// given the same attributes, so with its defaults where RedQueueDisc has
// its own ("netcond"), over the seeds: mean and standard deviation of each
// metric, the difference of the means, Welch's t, and the tolerance. Runs of
// NetcondRedQueueDisc with Fj93=true ("netcond-fj93") are shown beside them,
// unchecked. Setups whose label starts with "pie-" are runs with --aqm=pie:
// ns-3's PieQueueDisc ("ns3") against NetcondPieQueueDisc ("netcond"), with
// the same metrics and tolerances. Prints a Markdown table and a closing
// "N passed, N failed" line;
// exits 1 when a metric is out of tolerance or a disc has no runs.
//
// The tolerances, and why, are in integrations/ns3/README.md.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace
{

struct Metric
{
    const char* name;   // column name
    const char* title;  // table label
    double relTol;      // allowed |difference of means| relative to the ns-3 mean
    double absTol;      // ... or this much absolute, whichever is larger
};

// See README.md, "Tolerance".
const Metric kMetrics[] = {
    {"early", "early drops + marks", 0.10, 20},
    {"forced_drops", "forced drops (avg >= 2 max_th)", 0.25, 10},
    {"overflow_drops", "buffer-overflow drops", 0.50, 60},
    {"avg_queue_pkts", "time-average queue (packets)", 0.10, 0.5},
    {"goodput_mbps", "aggregate goodput (Mbit/s)", 0.01, 0},
    {"jain", "Jain fairness index", 0, 0.02},
};

// The setup with many flows and fast access links over 20 s ("many-flows"):
// fewer packets per run, so a wider spread from seed to seed; the bounds of
// issue #34 for early drops and goodput, the others as above.
const Metric kManyFlowsMetrics[] = {
    {"early", "early drops + marks", 0.25, 20},
    {"forced_drops", "forced drops (avg >= 2 max_th)", 0.25, 10},
    {"overflow_drops", "buffer-overflow drops", 0.50, 60},
    {"avg_queue_pkts", "time-average queue (packets)", 0.10, 0.5},
    {"goodput_mbps", "aggregate goodput (Mbit/s)", 0.03, 0},
    {"jain", "Jain fairness index", 0, 0.02},
};

struct Sample
{
    std::vector<double> v;

    double Mean() const
    {
        double s = 0;
        for (double x : v)
        {
            s += x;
        }
        return v.empty() ? 0 : s / v.size();
    }

    double Sd() const
    {
        if (v.size() < 2)
        {
            return 0;
        }
        double m = Mean();
        double s = 0;
        for (double x : v)
        {
            s += (x - m) * (x - m);
        }
        return std::sqrt(s / (v.size() - 1));
    }
};

std::vector<std::string>
Split(const std::string& line)
{
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, ','))
    {
        out.push_back(f);
    }
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    if (argc < 2)
    {
        std::fprintf(stderr, "usage: %s RESULTS.csv...\n", argv[0]);
        return 2;
    }
    // data[(label, ecn)][disc][metric] = samples
    std::map<std::pair<std::string, int>, std::map<std::string, std::map<std::string, Sample>>>
        data;
    std::vector<std::string> cols;
    for (int a = 1; a < argc; a++)
    {
        std::ifstream in(argv[a]);
        if (!in)
        {
            std::fprintf(stderr, "cannot read %s\n", argv[a]);
            return 2;
        }
        std::string line;
        while (std::getline(in, line))
        {
            auto f = Split(line);
            if (f.size() < 2)
            {
                continue;
            }
            if (f[0] == "label")
            {
                cols = f;
                continue;
            }
            if (cols.empty() || f.size() != cols.size())
            {
                std::fprintf(stderr, "%s: a row without a matching header: %s\n", argv[a],
                             line.c_str());
                return 2;
            }
            std::map<std::string, double> row;
            for (size_t i = 0; i < cols.size(); i++)
            {
                row[cols[i]] = std::atof(f[i].c_str());
            }
            std::string disc = f[1];
            int ecn = int(row["ecn"]);
            row["early"] = row["early_drops"] + row["early_marks"];
            for (const Metric& m : kMetrics)
            {
                data[{f[0], ecn}][disc][m.name].v.push_back(row[m.name]);
            }
        }
    }

    int passed = 0;
    int failed = 0;
    for (auto& [key, byDisc] : data)
    {
        const std::string& label = key.first;
        const int ecn = key.second;
        const bool many = label == "many-flows";
        const Metric* metrics = many ? kManyFlowsMetrics : kMetrics;
        auto& a = byDisc["ns3"];
        auto& b = byDisc["netcond"];
        auto& c = byDisc["netcond-fj93"];
        size_t na = a["early"].v.size();
        size_t nb = b["early"].v.size();
        size_t nc = c["early"].v.size();
        std::printf("\n### %s%s%s\n\n", label.empty() ? "" : label.c_str(),
                    label.empty() ? "" : ": ",
                    ecn ? "ECN (ECT packets marked instead of early drops)" : "drops (no ECN)");
        if (na == 0 || nb == 0 || na != nb)
        {
            std::printf("missing runs: ns3 %zu, netcond %zu\n", na, nb);
            failed++;
            continue;
        }
        // Setups labelled "pie-..." are netcond-red-dumbbell --aqm=pie runs:
        // PieQueueDisc against NetcondPieQueueDisc, whose "forced drops" are
        // the drops at MaxSize.
        const bool pie = label.rfind("pie-", 0) == 0;
        std::printf("| metric | ns-3 %s (%zu seed%s) | %s (%zu "
                    "seed%s) | difference | Welch t | tolerance | | NetcondRedQueueDisc, "
                    "Fj93=true (%zu seed%s) |\n|---|---|---|---|---|---|---|---|\n",
                    pie ? "PieQueueDisc" : "RedQueueDisc", na, na == 1 ? "" : "s",
                    pie ? "NetcondPieQueueDisc" : "NetcondRedQueueDisc", nb, nb == 1 ? "" : "s",
                    nc, nc == 1 ? "" : "s");
        for (size_t k = 0; k < sizeof kMetrics / sizeof kMetrics[0]; k++)
        {
            const Metric& m = metrics[k];
            const Sample& x = a[m.name];
            const Sample& y = b[m.name];
            const Sample& z = c[m.name];
            double d = y.Mean() - x.Mean();
            double se = std::sqrt(x.Sd() * x.Sd() / na + y.Sd() * y.Sd() / nb);
            double tol = std::max(m.relTol * std::fabs(x.Mean()), m.absTol);
            bool ok = std::fabs(d) <= tol;
            (ok ? passed : failed)++;
            char t[32];
            if (se > 0)
            {
                std::snprintf(t, sizeof t, "%.2f", d / se);
            }
            else
            {
                std::snprintf(t, sizeof t, "-");
            }
            char rel[32] = "";
            if (x.Mean() != 0)
            {
                std::snprintf(rel, sizeof rel, " (%+.1f %%)", 100 * d / x.Mean());
            }
            char fj[64] = "-";
            if (nc > 0)
            {
                std::snprintf(fj, sizeof fj, "%.4g ± %.2g", z.Mean(), z.Sd());
            }
            std::printf("| %s | %.4g ± %.2g | %.4g ± %.2g | %+.4g%s | %s | ± %.3g | %s | %s |\n",
                        pie && std::string(m.name) == "forced_drops" ? "drops at MaxSize"
                                                                     : m.title,
                        x.Mean(), x.Sd(), y.Mean(), y.Sd(), d, rel, t, tol,
                        ok ? "ok" : "OUT", fj);
        }
    }
    std::printf("\nred-crosscheck: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
