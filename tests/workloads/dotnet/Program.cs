// A CPU-bound workload with distinctive method names for the perfcollect-c .NET tests.
//
//   pc-dotnet-app SECONDS   spin for SECONDS (fractions allowed), then exit
//
// It prints "ready <pid>" once its hot methods have been JIT-compiled and run, so a test
// can wait for that line instead of sleeping.  The hot path is the app's own code
// (HotLoop.Churn / HotLoop.Digits) calling into framework code: LINQ (System.Linq.dll) and
// string formatting and hashing (System.Private.CoreLib.dll).  Hot framework methods get
// re-JIT-compiled by tiered compilation, so to keep ReadyToRun code on every stack the main
// loop runs inside one call of String.Join (precompiled in CoreLib): a method called once
// is never re-JIT-compiled, and it calls back into the app's iterator for each round.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Text;

namespace PcDotnetApp
{
	public static class HotLoop
	{
		// NoInlining keeps each method a frame of its own in the samples.
		[MethodImpl(MethodImplOptions.NoInlining)]
		public static long Churn(int round)
		{
			// LINQ over a range: Enumerable.Range/Where/Select/Sum run from R2R code.
			return Enumerable.Range(round, 2000)
				.Where(i => (i & 3) != 0)
				.Select(i => (long)i * i)
				.Sum();
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		public static int Digits(int round)
		{
			// String work in CoreLib: formatting, concatenation, searching, hashing.
			var sb = new StringBuilder();
			for (int i = 0; i < 200; i++)
				sb.Append((round + i).ToString(CultureInfo.InvariantCulture)).Append(',');
			string s = sb.ToString().ToUpperInvariant();
			return s.IndexOf("99", StringComparison.Ordinal) + s.GetHashCode() % 7;
		}

		// One round per item, for SECONDS; String.Join drives it from ReadyToRun code.
		public static IEnumerable<string> Rounds(double seconds)
		{
			var sw = Stopwatch.StartNew();
			for (int round = 0; sw.Elapsed.TotalSeconds < seconds; round++)
				yield return (Churn(round) + Digits(round) & 1) == 0 ? "" : "1";
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		public static long Spin(double seconds)
		{
			long acc = 0;
			var sw = Stopwatch.StartNew();
			for (int round = 0; sw.Elapsed.TotalSeconds < seconds; round++)
				acc += Churn(round) + Digits(round);
			return acc;
		}
	}

	public static class Program
	{
		public static int Main(string[] args)
		{
			double seconds = 5;
			if (args.Length > 0 && !double.TryParse(args[0], NumberStyles.Float,
								CultureInfo.InvariantCulture, out seconds)) {
				Console.Error.WriteLine("usage: pc-dotnet-app SECONDS");
				return 2;
			}
			// Warm up so the methods exist (JIT-compiled) before "ready".
			long acc = HotLoop.Spin(0.2);
			Console.WriteLine("ready " + Environment.ProcessId);
			Console.Out.Flush();
			acc += string.Join(",", HotLoop.Rounds(seconds)).Length;
			Console.WriteLine("done " + (acc & 0xff));
			return 0;
		}
	}
}
