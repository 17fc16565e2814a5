#include "bench/soak_report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <fstream>

namespace vtenant::bench {
namespace {

std::string Fmt(const char* format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

// The kinds that sum many processes, whose per-process mean is shown too.
bool PerTenant(const std::string& kind) { return kind.starts_with("tenant "); }

// The first sample at or after `t_s` seconds; null when none is.
const Sample* FirstFrom(const SoakRun& run, double t_s) {
  for (const Sample& s : run.samples) {
    if (s.t_s >= t_s) return &s;
  }
  return nullptr;
}

// The sample the growth is measured from: the first at or after the
// baseline minute; the first of all when the run was shorter.
const Sample* Baseline(const SoakRun& run) {
  if (run.samples.empty()) return nullptr;
  const Sample* s = FirstFrom(run, run.settings.baseline_minutes * 60);
  return s != nullptr ? s : &run.samples.front();
}

// The first sample at or after half the run: growth from it to the end
// tells a program still growing from one whose windows filled early and
// then stayed level (etcd's and the API servers' five minutes of history,
// the syncers' fifteen minutes of deleted objects for late Events).
const Sample* Midpoint(const SoakRun& run) {
  if (run.samples.empty()) return nullptr;
  return FirstFrom(run, run.samples.back().t_s / 2);  // the last sample at the latest
}

double Growth(double from, double to) { return from > 0 ? 100 * (to - from) / from : 0; }

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out.push_back(c);
  }
  return out;
}

// Markdown table cells hold no '|'.
std::string Cell(std::string text) {
  std::replace(text.begin(), text.end(), '|', '/');
  return text;
}

const char* const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aa3377"};

// Window `w`'s minutes, as the tables show them. Past --minutes only the
// cycles under way finish.
std::string WindowLabel(const SoakRun& run, int w) {
  const double from = w * run.settings.window_minutes;
  return from >= run.settings.minutes - 1e-9
             ? Fmt("%g–%.1f (last cycles finishing)", from, run.churn_s / 60)
             : Fmt("%g–%g", from,
                   std::min(run.settings.minutes, (w + 1) * run.settings.window_minutes));
}

// The syncers' heap in use by window, lowest and highest of its readings.
// The lowest is what stays between cycles; the highest, a cycle's pods in
// flight on top of it.
std::map<int, std::pair<double, double>> SyncerHeapByWindow(const SoakRun& run) {
  std::map<int, std::pair<double, double>> out;
  for (const auto& [t_s, mib] : run.syncer_heap) {
    const int w = static_cast<int>(t_s / 60 / run.settings.window_minutes);
    auto [it, added] = out.try_emplace(w, mib, mib);
    it->second.first = std::min(it->second.first, mib);
    it->second.second = std::max(it->second.second, mib);
  }
  return out;
}

// SyncerHeapByWindow as a table.
std::string SyncerHeapSection(const SoakRun& run) {
  std::string md =
      "## The syncers' heap in use per window (mean per process, read once a minute)\n\n"
      "A syncer's heap rises with each cycle's pods and falls when they go; the lowest reading "
      "of a window is what stays, with the freed chunks its threads keep cached (malloc counts "
      "them as in use).\n\n| window (min) | lowest MiB | highest MiB |\n"
      "| --- | --- | --- |\n";
  for (const auto& [w, range] : SyncerHeapByWindow(run)) {
    md += Fmt("| %s | %.2f | %.2f |\n", WindowLabel(run, w).c_str(), range.first, range.second);
  }
  return md + "\n";
}

// What a kind of server holds more of between the baseline and the end, by
// its own /metrics: the heap in use (`heap`, what it is for that kind), the
// gauges of what else holds memory (live heap, goroutines, watches, metric
// series, malloc's free memory), and the objects (`objects_held`: "stored"
// or "cached") of each resource whose count changed.
std::string SelfSection(const std::string& title, const std::string& heap,
                        const std::string& objects_held, const SelfReadings& readings) {
  const ServerSelf& b = readings.at_baseline;
  const ServerSelf& e = readings.at_end;
  std::string md = readings.read == 1
                       ? Fmt("## %s by its own /metrics\n\n", title.c_str())
                       : Fmt("## %s by their own /metrics (mean per process, %d read)\n\n",
                             title.c_str(), readings.read);
  md += "| figure | baseline | end | change |\n| --- | --- | --- | --- |\n";
  md += Fmt("| %s, MiB | %.1f | %.1f | %+.1f %% |\n", heap.c_str(), b.heap_inuse_mib,
            e.heap_inuse_mib, Growth(b.heap_inuse_mib, e.heap_inuse_mib));
  std::map<std::string, std::pair<double, double>> gauges;
  for (const auto& [figure, value] : b.gauges) gauges[figure] = {value, -1};
  for (const auto& [figure, value] : e.gauges) {
    gauges.try_emplace(figure, -1, -1).first->second.second = value;
  }
  auto gauge = [](double v) { return v < 0 ? std::string("—") : Fmt("%.1f", v); };
  for (const auto& [figure, v] : gauges) {
    md += "| " + figure + " | " + gauge(v.first) + " | " + gauge(v.second) + " | " +
          (v.first <= 0 || v.second < 0 ? std::string("")
                                        : Fmt("%+.1f %%", Growth(v.first, v.second))) +
          " |\n";
  }
  // -1: no count of that resource was served then (a server reports each
  // resource's count only some time after it starts).
  std::map<std::string, std::pair<int64_t, int64_t>> objects;
  for (const auto& [resource, n] : b.objects) objects[resource] = {n, -1};
  for (const auto& [resource, n] : e.objects) {
    objects.try_emplace(resource, -1, -1).first->second.second = n;
  }
  auto count = [](int64_t n) { return n < 0 ? std::string("—") : std::to_string(n); };
  for (const auto& [resource, n] : objects) {
    if (n.first == n.second) continue;
    md += "| " + resource + " " + objects_held + " | " + count(n.first) + " | " + count(n.second) +
          " | " +
          (n.first < 0 || n.second < 0 ? std::string("")
                                       : Fmt("%+lld", static_cast<long long>(n.second - n.first))) +
          " |\n";
  }
  return md + "\n";
}

}  // namespace

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

Status WriteSamplesCsv(const std::string& path, const std::vector<Sample>& samples) {
  std::ofstream out(path);
  if (!out) return Internal("cannot write " + path);
  out << "t_s,kind,processes,rss_mib,rss_mib_per_process,cpu_s,load1\n";
  for (const Sample& s : samples) {
    for (const std::string& kind : ProgramKinds()) {
      const KindSample& k = s.kinds.at(kind);
      out << Fmt("%.1f,%s,%d,%.1f,%.1f,%.2f,%.2f\n", s.t_s, kind.c_str(), k.processes, k.rss_mib,
                 k.processes > 0 ? k.rss_mib / k.processes : 0.0, k.cpu_s, s.load1);
    }
  }
  return out.good() ? Status::Ok() : Internal("writing " + path);
}

std::string SummaryMarkdown(const SoakRun& run) {
  std::string md;
  md += "# Soak: " + std::to_string(run.settings.tenants) + " tenants × " +
        std::to_string(run.settings.pods) + " pods, " + Fmt("%.1f", run.churn_s / 60) +
        " minutes of churn\n\n";
  md += "- command: `" + run.command + "`\n";
  md += "- started " + run.started + ", commit " + run.commit + ", " + run.machine + "\n";
  double load_sum = 0, load_max = 0;
  for (const Sample& s : run.samples) {
    load_sum += s.load1;
    load_max = std::max(load_max, s.load1);
  }
  md +=
      Fmt("- load (1-minute average) during the churn: mean %.2f, max %.2f\n",
          run.samples.empty() ? 0.0 : load_sum / static_cast<double>(run.samples.size()), load_max);
  md +=
      Fmt("- Tenants applied → all Ready: %.0f s; churn cycles (create, run, delete) over all "
          "tenants: %d; host watch restarted %d times\n",
          run.tenants_ready_s, run.cycles, run.watch_restarts);
  md += run.settings.stagger_seconds > 0
            ? Fmt("- the teams' first cycles began over %.0f s, team i at i/%d of it\n\n",
                  run.settings.stagger_seconds, run.settings.tenants)
            : "- every team began its first cycle at once\n\n";

  md += "## Virtual create → host bound, per " + Fmt("%g", run.settings.window_minutes) +
        "-minute window\n\n";
  md +=
      "\"To the host pod\" is the syncer's part: the virtual create to the host pod's first "
      "sighting in the host watch. The rest is admission, the scheduler and the bind.\n\n";
  md +=
      "| window (min) | pods created | bound | p50 ms | p99 ms | max ms | of which to the host "
      "pod, p50 / p99 ms | churned | create errors | not Running | not gone | delete errors |\n";
  md += "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  std::vector<double> all, all_synced;
  for (const auto& [w, s] : run.windows) {
    const std::vector<double>& l = s.latencies_ms;
    all.insert(all.end(), l.begin(), l.end());
    const std::string window = WindowLabel(run, w);
    all_synced.insert(all_synced.end(), s.synced_ms.begin(), s.synced_ms.end());
    md += Fmt("| %s | %d | %zu | %.0f | %.0f | %.0f | %.0f / %.0f | %d | %d | %d | %d | %d |\n",
              window.c_str(), s.created, l.size(), Percentile(l, 0.5), Percentile(l, 0.99),
              l.empty() ? 0.0 : *std::max_element(l.begin(), l.end()), Percentile(s.synced_ms, 0.5),
              Percentile(s.synced_ms, 0.99), s.churned, s.create_errors, s.not_running, s.not_gone,
              s.delete_errors);
  }
  md += Fmt("| all | | %zu | %.0f | %.0f | | %.0f / %.0f | | | | | |\n\n", all.size(),
            Percentile(all, 0.5), Percentile(all, 0.99), Percentile(all_synced, 0.5),
            Percentile(all_synced, 0.99));
  if (!run.first_errors.empty()) {
    md += "First client errors:\n\n";
    for (const std::string& e : run.first_errors) md += "- " + Cell(e) + "\n";
    md += "\n";
  }

  const Sample* base = Baseline(run);
  const Sample* end = run.samples.empty() ? nullptr : &run.samples.back();
  const Sample* mid = Midpoint(run);
  if (base != nullptr) {
    md += Fmt(
        "## Resident memory (MiB): at %.1f min (baseline) and at the end (%.1f min); the second "
        "half from %.1f min\n\n",
        base->t_s / 60, end->t_s / 60, mid->t_s / 60);
    md +=
        "| program | processes (distinct seen) | baseline | end | growth | second half | max | per "
        "process, baseline → end |\n";
    md += "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for (const std::string& kind : ProgramKinds()) {
      const KindSample& b = base->kinds.at(kind);
      const KindSample& e = end->kinds.at(kind);
      double max = 0;
      for (const Sample& s : run.samples) max = std::max(max, s.kinds.at(kind).rss_mib);
      auto seen = run.pids_seen.find(kind);
      std::string per = "";
      if (PerTenant(kind) && b.processes > 0 && e.processes > 0) {
        per = Fmt("%.1f → %.1f", b.rss_mib / b.processes, e.rss_mib / e.processes);
      }
      md += Fmt("| %s | %d (%d) | %.1f | %.1f | %+.1f %% | %+.1f %% | %.1f | %s |\n", kind.c_str(),
                e.processes, seen == run.pids_seen.end() ? 0 : seen->second, b.rss_mib, e.rss_mib,
                Growth(b.rss_mib, e.rss_mib), Growth(mid->kinds.at(kind).rss_mib, e.rss_mib), max,
                per.c_str());
    }
    double b_total = 0, m_total = 0, e_total = 0;
    for (const std::string& kind : ProgramKinds()) {
      b_total += base->kinds.at(kind).rss_mib;
      m_total += mid->kinds.at(kind).rss_mib;
      e_total += end->kinds.at(kind).rss_mib;
    }
    md += Fmt("| all | | %.1f | %.1f | %+.1f %% | %+.1f %% | | |\n\n", b_total, e_total,
              Growth(b_total, e_total), Growth(m_total, e_total));

    md +=
        "## CPU during the churn\n\n| program | CPU s | mean cores | per process, mean cores "
        "|\n| --- | --- | --- | --- |\n";
    const double wall = std::max(1.0, end->t_s);
    double cpu_total = 0;
    for (const std::string& kind : ProgramKinds()) {
      const KindSample& e = end->kinds.at(kind);
      cpu_total += e.cpu_s;
      md +=
          Fmt("| %s | %.1f | %.3f | %s |\n", kind.c_str(), e.cpu_s, e.cpu_s / wall,
              PerTenant(kind) && e.processes > 0 ? Fmt("%.4f", e.cpu_s / wall / e.processes).c_str()
                                                 : "");
    }
    md += Fmt("| all | %.1f | %.3f | |\n\n", cpu_total, cpu_total / wall);
  }

  if (run.tenant_apiservers.read > 0) {
    md +=
        SelfSection("The tenants' API servers", "Go heap in use", "stored", run.tenant_apiservers);
  }
  if (run.host_apiserver.read > 0) {
    md += SelfSection("The host's API server", "Go heap in use", "stored", run.host_apiserver);
  }
  if (run.syncers.read > 0) {
    md += SelfSection("The syncers (cluster primary: the host)", "malloc heap in use", "cached",
                      run.syncers);
  }
  if (!run.syncer_heap.empty()) md += SyncerHeapSection(run);
  if (run.operator_self.read > 0) {
    md += SelfSection("vtenant-operator (cluster primary: the host)", "malloc heap in use",
                      "cached", run.operator_self);
  }
  if (run.scheduler_self.read > 0) {
    md += SelfSection("vtenant-scheduler (cluster primary: the host)", "malloc heap in use",
                      "cached", run.scheduler_self);
  }

  md += "## Restarts\n\n";
  if (run.restarts.empty()) md += "- none of the host's components was restarted\n";
  for (const std::string& r : run.restarts) md += "- " + r + "\n";
  if (end != nullptr) {
    for (const std::string& kind : ProgramKinds()) {
      auto seen = run.pids_seen.find(kind);
      const int now = end->kinds.at(kind).processes;
      if (seen != run.pids_seen.end() && seen->second > now) {
        md += Fmt("- %s: %d processes seen, %d at the end\n", kind.c_str(), seen->second, now);
      }
    }
  }

  md +=
      Fmt("\n## Errors in the logs\n\n%lld error lines during the churn, %lld before it "
          "(start-up and Tenants coming up).\n\n",
          static_cast<long long>(run.errors.after), static_cast<long long>(run.errors.before));
  md += "| log | before | during |\n| --- | --- | --- |\n";
  for (const auto& [file, counts] : run.errors.per_file) {
    if (counts.first == 0 && counts.second == 0) continue;
    md += Fmt("| %s | %lld | %lld |\n", file.c_str(), static_cast<long long>(counts.first),
              static_cast<long long>(counts.second));
  }
  md += "\nMost frequent during the churn (digits folded to #):\n\n";
  for (const auto& [message, n] : TopMessages(run.errors.messages, 10)) {
    md += Fmt("- %lld × ", static_cast<long long>(n)) + "`" + message + "`\n";
  }
  md += "\nMost frequent before it:\n\n";
  for (const auto& [message, n] : TopMessages(run.errors.messages_before, 5)) {
    md += Fmt("- %lld × ", static_cast<long long>(n)) + "`" + message + "`\n";
  }

  md += "\n## Against issue 22's goals (reported, not asserted)\n\n";
  if (base != nullptr) {
    std::string over, growing;
    for (const std::string& kind : ProgramKinds()) {
      const double e = end->kinds.at(kind).rss_mib;
      const double g = Growth(base->kinds.at(kind).rss_mib, e);
      if (g >= 5) over += Fmt(" %s %+.1f %%;", kind.c_str(), g);
      const double late = Growth(mid->kinds.at(kind).rss_mib, e);
      if (late >= 2) growing += Fmt(" %s %+.1f %%;", kind.c_str(), late);
    }
    md += "- RSS growth under 5 % after the baseline: " +
          (over.empty() ? std::string("every program kind") : "over it:" + over) + "\n";
    md += "- still growing in the second half (2 % or more): " +
          (growing.empty() ? std::string("none") : growing.substr(1)) + "\n";
  }
  std::vector<double> p99s;  // of the windows with pods bound
  for (const auto& [w, s] : run.windows) {
    if (!s.latencies_ms.empty()) p99s.push_back(Percentile(s.latencies_ms, 0.99));
  }
  if (p99s.size() >= 2) {
    md += Fmt(
        "- p99 flat: first window %.0f ms, last %.0f ms (%.2f×); lowest %.0f, highest "
        "%.0f\n",
        p99s.front(), p99s.back(), p99s.front() > 0 ? p99s.back() / p99s.front() : 0.0,
        *std::min_element(p99s.begin(), p99s.end()), *std::max_element(p99s.begin(), p99s.end()));
  }
  // The syncers' heap floor from the baseline's window to the last full one.
  std::map<int, std::pair<double, double>> heap = SyncerHeapByWindow(run);
  const int first = static_cast<int>(run.settings.baseline_minutes / run.settings.window_minutes);
  const int last = static_cast<int>(run.settings.minutes / run.settings.window_minutes) - 1;
  if (heap.count(first) > 0 && heap.count(last) > 0 && last > first) {
    md += Fmt("- the syncers' heap floor: %.2f MiB in minutes %s, %.2f MiB in %s (%+.1f %%)\n",
              heap[first].first, WindowLabel(run, first).c_str(), heap[last].first,
              WindowLabel(run, last).c_str(), Growth(heap[first].first, heap[last].first));
  }
  md += Fmt("- no errors: %lld error lines during the churn\n",
            static_cast<long long>(run.errors.after));
  return md;
}

std::string PlotSvg(const SoakRun& run) {
  constexpr double kWidth = 1000, kLeft = 70, kPlotW = 680, kPlotH = 200, kGap = 90;
  constexpr double kTop = 50;
  const double t_max =
      std::max(1.0, run.samples.empty() ? 1.0 : run.samples.back().t_s / 60);  // minutes
  auto x_of = [&](double minutes) { return kLeft + kPlotW * minutes / t_max; };
  std::string svg =
      Fmt("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
          "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" "
          "fill=\"white\"/>\n",
          kWidth, kTop + 3 * (kPlotH + kGap));
  svg += Fmt("<text x=\"%.0f\" y=\"22\" font-size=\"14\">%s</text>\n", kLeft,
             XmlEscape(Fmt("vtenant soak: %d tenants × %d pods, %.1f min of churn, started %s, "
                           "commit %s",
                           run.settings.tenants, run.settings.pods, run.churn_s / 60,
                           run.started.c_str(), run.commit.c_str()))
                 .c_str());

  // Frame, title and x axis of panel `i`; returns its top.
  auto panel = [&](int i, const std::string& title) {
    const double top = kTop + i * (kPlotH + kGap);
    svg += Fmt("<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\">%s</text>\n", kLeft, top - 8,
               XmlEscape(title).c_str());
    svg +=
        Fmt("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
            "stroke=\"#888\"/>\n",
            kLeft, top, kPlotW, kPlotH);
    const double step = t_max <= 10 ? 1 : t_max <= 30 ? 5 : 10;
    for (double m = 0; m <= t_max + 1e-9; m += step) {
      svg +=
          Fmt("<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#eee\"/>"
              "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%g</text>\n",
              x_of(m), top, x_of(m), top + kPlotH, x_of(m), top + kPlotH + 14, m);
    }
    svg += Fmt("<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">minutes of churn</text>\n",
               kLeft + kPlotW / 2, top + kPlotH + 30);
    return top;
  };
  auto y_label = [&](double top, const std::string& text) {
    svg +=
        Fmt("<text transform=\"translate(18,%.0f) rotate(-90)\" text-anchor=\"middle\">%s"
            "</text>\n",
            top + kPlotH / 2, XmlEscape(text).c_str());
  };
  auto polyline = [&](const std::vector<std::pair<double, double>>& points, const char* colour,
                      bool markers) {
    if (points.empty()) return;
    svg += Fmt("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colour);
    for (const auto& [x, y] : points) svg += Fmt("%.1f,%.1f ", x, y);
    svg += "\"/>\n";
    if (!markers) return;
    for (const auto& [x, y] : points) {
      svg += Fmt("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x, y, colour);
    }
  };
  auto legend = [&](double top, int row, const std::string& text, const char* colour) {
    const double y = top + 6 + 16 * row;
    svg += Fmt(
        "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"3\" fill=\"%s\"/>"
        "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
        kLeft + kPlotW + 15, y + 2, colour, kLeft + kPlotW + 32, y + 6, XmlEscape(text).c_str());
  };

  // Panel 1: resident memory, log scale, so the small programs show beside
  // the tenants' API servers.
  double lo = 1e18, hi = 0;
  for (const Sample& s : run.samples) {
    for (const auto& [kind, k] : s.kinds) {
      if (k.rss_mib <= 0) continue;
      lo = std::min(lo, k.rss_mib);
      hi = std::max(hi, k.rss_mib);
    }
  }
  if (hi <= 0) lo = 1, hi = 10;
  const double d_lo = std::floor(std::log10(lo)),
               d_hi = std::max(d_lo + 1, std::ceil(std::log10(hi)));
  double top = panel(0, "Resident memory per program kind (MiB, log scale; tenants' kinds summed)");
  y_label(top, "MiB");
  auto y_log = [&](double mib) {
    return top + kPlotH - kPlotH * (std::log10(mib) - d_lo) / (d_hi - d_lo);
  };
  for (double d = d_lo; d <= d_hi; ++d) {
    svg +=
        Fmt("<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>"
            "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
            kLeft, y_log(std::pow(10, d)), kLeft + kPlotW, y_log(std::pow(10, d)), kLeft - 5,
            y_log(std::pow(10, d)) + 4, std::pow(10, d));
  }
  int colour = 0;
  for (const std::string& kind : ProgramKinds()) {
    std::vector<std::pair<double, double>> points;
    for (const Sample& s : run.samples) {
      const double rss = s.kinds.at(kind).rss_mib;
      if (rss > 0) points.push_back({x_of(s.t_s / 60), y_log(rss)});
    }
    polyline(points, kColours[colour], false);
    legend(top, colour, kind, kColours[colour]);
    ++colour;
  }

  // Panel 2: the same relative to the baseline sample; the band is ±5 %.
  const Sample* base = Baseline(run);
  top = panel(1, Fmt("Resident memory relative to the sample at %.1f min (%%); band: ±5 %%",
                     base != nullptr ? base->t_s / 60 : 0.0));
  y_label(top, "% of baseline");
  double r_lo = 90, r_hi = 110;
  for (const Sample& s : run.samples) {
    for (const std::string& kind : ProgramKinds()) {
      const double b = base != nullptr ? base->kinds.at(kind).rss_mib : 0;
      if (b <= 0 || s.kinds.at(kind).rss_mib <= 0) continue;
      r_lo = std::min(r_lo, 100 * s.kinds.at(kind).rss_mib / b);
      r_hi = std::max(r_hi, 100 * s.kinds.at(kind).rss_mib / b);
    }
  }
  r_lo = std::max(0.0, std::floor(r_lo / 10) * 10);
  r_hi = std::min(400.0, std::ceil(r_hi / 10) * 10);
  auto y_rel = [&](double pct) {
    return top + kPlotH - kPlotH * (std::clamp(pct, r_lo, r_hi) - r_lo) / (r_hi - r_lo);
  };
  svg += Fmt("<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"#e8f4e8\"/>\n",
             kLeft, y_rel(105), kPlotW, y_rel(95) - y_rel(105));
  const double r_step = r_hi - r_lo > 100 ? 50 : 10;
  for (double p = r_lo; p <= r_hi + 1e-9; p += r_step) {
    svg +=
        Fmt("<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>"
            "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
            kLeft, y_rel(p), kLeft + kPlotW, y_rel(p), kLeft - 5, y_rel(p) + 4, p);
  }
  if (base != nullptr) {
    svg +=
        Fmt("<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#888\" "
            "stroke-dasharray=\"4,3\"/>\n",
            x_of(base->t_s / 60), top, x_of(base->t_s / 60), top + kPlotH);
    colour = 0;
    for (const std::string& kind : ProgramKinds()) {
      std::vector<std::pair<double, double>> points;
      const double b = base->kinds.at(kind).rss_mib;
      for (const Sample& s : run.samples) {
        const double rss = s.kinds.at(kind).rss_mib;
        if (b > 0 && rss > 0) points.push_back({x_of(s.t_s / 60), y_rel(100 * rss / b)});
      }
      polyline(points, kColours[colour], false);
      legend(top, colour, kind, kColours[colour]);
      ++colour;
    }
  }

  // Panel 3: latency per window, at the window's middle.
  top = panel(2, Fmt("Virtual create → host pod bound, per %g-minute window (ms)",
                     run.settings.window_minutes));
  y_label(top, "ms");
  double l_hi = 1;
  for (const auto& [w, s] : run.windows) l_hi = std::max(l_hi, Percentile(s.latencies_ms, 0.99));
  const double magnitude = std::pow(10, std::floor(std::log10(l_hi)));
  l_hi = std::ceil(l_hi * 1.1 / magnitude) * magnitude;
  auto y_ms = [&](double ms) { return top + kPlotH - kPlotH * ms / l_hi; };
  for (double v = 0; v <= l_hi + 1e-9; v += l_hi / 5) {
    svg +=
        Fmt("<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>"
            "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
            kLeft, y_ms(v), kLeft + kPlotW, y_ms(v), kLeft - 5, y_ms(v) + 4, v);
  }
  std::vector<std::pair<double, double>> p50, p99;
  for (const auto& [w, s] : run.windows) {
    if (s.latencies_ms.empty()) continue;
    const double middle = std::min(t_max, (w + 0.5) * run.settings.window_minutes);
    p50.push_back({x_of(middle), y_ms(Percentile(s.latencies_ms, 0.5))});
    p99.push_back({x_of(middle), y_ms(Percentile(s.latencies_ms, 0.99))});
  }
  polyline(p99, "#d62728", true);
  polyline(p50, "#1f77b4", true);
  legend(top, 0, "p99", "#d62728");
  legend(top, 1, "p50", "#1f77b4");
  svg += "</svg>\n";
  return svg;
}

}  // namespace vtenant::bench
